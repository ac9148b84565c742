//go:build !linux

package gitserver

// memoryRoot is "": only Linux's /dev/shm is known to be a tmpfs.
func memoryRoot() string { return "" }
