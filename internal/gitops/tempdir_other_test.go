//go:build !linux

package gitops_test

import "testing"

// tempDir is t.TempDir; on Linux it prefers a tmpfs (tempdir_linux_test.go).
func tempDir(t *testing.T) string { return t.TempDir() }
