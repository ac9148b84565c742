package gittest

import "syscall"

// memoryRoot is /dev/shm when it is a tmpfs with a GiB free, else "".
func memoryRoot() string {
	const shm, room, tmpfsMagic = "/dev/shm", 1 << 30, 0x01021994 // TMPFS_MAGIC, linux/magic.h
	var st syscall.Statfs_t
	if err := syscall.Statfs(shm, &st); err != nil || st.Type != tmpfsMagic || st.Bavail*uint64(st.Bsize) < room {
		return ""
	}
	return shm
}
