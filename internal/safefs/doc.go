// Package safefs reads and writes the files a repository names (its
// config's paths, the files init and apply write) without ever leaving the
// repository: every name is resolved inside an os.Root, so neither "..",
// an absolute path nor a symbolic link can lead out of it. Only regular
// files are read, and a named pipe or device is refused before it can block
// a read; reads are capped; writes go to a temporary file renamed over the
// target, so a file is either replaced whole or left as it was.
package safefs
