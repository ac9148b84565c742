package job

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPoolDonePrunesGitPacks: at the end of a serve pass the git packs
// kept under --cache DIR/git are brought back under --cache-size with the
// registry's answers, and a run is given DIR/git and that bound; without
// --cache no directory is.
func TestPoolDonePrunesGitPacks(t *testing.T) {
	dir := t.TempDir()
	c := &Cache{Dir: dir, MaxBytes: 100}
	packs, bound := c.git()
	if packs != filepath.Join(dir, "git") || bound != 100 {
		t.Errorf("git cache %q, %d", packs, bound)
	}
	repo := filepath.Join(packs, "v1", "0123")
	for name, size := range map[string]int{"origin": 20, "gen-000000001-x/pack-a.pack": 500} {
		p := filepath.Join(repo, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	NewPool(Options{Registry: Registry{Cache: c}}).Done()
	if _, err := os.Stat(repo); !os.IsNotExist(err) {
		t.Errorf("packs over the bound kept: %v", err)
	}
	if d, _ := (*Cache)(nil).git(); d != "" {
		t.Errorf("without --cache: %q", d)
	}
}
