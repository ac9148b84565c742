package cache_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/registry/cache"
)

// TestHostLimits: a learnt limit is kept for a week, a damaged file is a
// miss, and another host's file never answers.
func TestHostLimits(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	c := open(t, dir, cache.WithClock(clk.now))
	want := cache.HostLimits{Host: "quay.io", TokenScopes: 50, Learnt: clk.now()}
	if err := c.PutHostLimits(want); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.HostLimits("quay.io"); !ok || got.TokenScopes != 50 {
		t.Errorf("HostLimits(quay.io) = %+v, %v; want 50 scopes", got, ok)
	}
	if _, ok := c.HostLimits("ghcr.io"); ok {
		t.Error("ghcr.io has limits it never learnt")
	}
	clk.add(8 * 24 * time.Hour)
	if _, ok := c.HostLimits("quay.io"); ok {
		t.Error("a limit learnt 8 days ago is still trusted")
	}

	clk.add(-8 * 24 * time.Hour)
	files, _ := filepath.Glob(filepath.Join(dir, "*", "hosts", "*.json"))
	if len(files) != 1 {
		t.Fatalf("host files: %v, want one", files)
	}
	b, _ := os.ReadFile(files[0])
	b[len(b)-3] ^= 1
	os.WriteFile(files[0], b, 0o600)
	if _, ok := c.HostLimits("quay.io"); ok {
		t.Error("a damaged file answered")
	}
}
