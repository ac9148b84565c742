package gitops_test

import (
	"os"
	"syscall"
	"testing"
)

// tempDir is t.TempDir, but on /dev/shm when it is a tmpfs with room to
// spare. A world's git remote and checkouts are thousands of small files
// that git's processes write and the tests delete again; on a disk file
// system (ext4) that costs them about twice the system time, and the
// package's wall time by a third.
func tempDir(t *testing.T) string {
	t.Helper()
	const shm, room = "/dev/shm", 1 << 30
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err != nil || st.Type != tmpfsMagic || st.Bavail*uint64(st.Bsize) < room {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp(shm, "imagebot-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// tmpfsMagic is TMPFS_MAGIC of linux/magic.h.
const tmpfsMagic = 0x01021994
