// Package scan finds every image reference in a repository's YAML files,
// with the exact byte span of its tag and digest.
//
// It reads files and parses them with kyaml only to learn positions; it never
// writes, never re-serializes, and never asks a registry anything. A file it
// cannot parse becomes a Problem naming the file and line, and yields no
// references, so nothing downstream can touch it.
package scan
