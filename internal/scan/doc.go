// Package scan finds every image reference in a repository's YAML files
// (also inside block strings and in the literal lines of templates),
// Dockerfiles and CI files, with the exact byte span of its tag and digest.
//
// It reads files and parses them with kyaml only to learn positions; it never
// writes, never re-serializes, and never asks a registry anything. A file it
// cannot use (above the size cap, not UTF-8, not valid YAML) becomes a
// Problem naming the file and the line to fix, and yields no references, so
// nothing downstream can touch it; in a template, so does each document
// that does not parse once its template syntax is left out. A value where a reference
// belongs that is not one (a variable, an invalid reference) is Skipped,
// never dropped silently.
//
// Bounds: a file is read up to the cap (DefaultMaxFileSize) and no further;
// scanning it takes time linear in its size (a syntax error costs a few more
// parses of a prefix, to find its line); messages quote at most ~100
// characters of a value.
package scan
