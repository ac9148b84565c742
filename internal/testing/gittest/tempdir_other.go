//go:build !linux

package gittest

// memoryRoot is "": only Linux's /dev/shm is known to be a tmpfs.
func memoryRoot() string { return "" }
