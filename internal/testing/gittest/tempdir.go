package gittest

import "os"

// TB is the part of testing.TB that TempDir needs; this package is also
// built into the binary (the demo), which must not import testing.
type TB interface {
	TempDir() string
	Cleanup(func())
}

// TempDir is tb.TempDir, but in memory where the machine offers it: on
// Linux, /dev/shm when it is a tmpfs with a GiB free. A server's
// repositories are thousands of small files that git's processes write
// and tests delete again; on a disk file system (ext4) that costs git
// about twice the system time, and the gitops tests a third of their wall
// time. Only repositories go there, never anything to execute.
func TempDir(tb TB) string {
	root := memoryRoot()
	if root == "" {
		return tb.TempDir()
	}
	dir, err := os.MkdirTemp(root, "imagebot-test-")
	if err != nil {
		return tb.TempDir()
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
