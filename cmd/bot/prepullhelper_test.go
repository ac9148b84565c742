package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPrepullHelper: the DaemonSet's first init container copies the
// binary itself onto the shared volume, executable by any user, for the
// pull containers to run in images without a shell.
func TestPrepullHelper(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "imagebot")
	if _, stderr, code := imagebot(t, environ{}, "prepull-helper", dst); code != exitOK {
		t.Fatalf("status %d: %s", code, stderr)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile(self)
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("copy differs from the binary (%v)", err)
	}
	if st, _ := os.Stat(dst); st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", st.Mode().Perm())
	}
	if _, _, code := imagebot(t, environ{}, "prepull-helper", "relative"); code != exitUsage {
		t.Errorf("relative destination: status %d", code)
	}
}
