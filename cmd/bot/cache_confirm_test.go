package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/fixtures"
)

// TestCacheDigestConfirmed: a --cache listing edited on disk, its checksum
// recomputed, cannot make apply pin a digest the registry never served for
// the tag: a digest from the cache is confirmed by one HEAD before it is
// written. The edited entry is replaced by the registry's digest, so the
// next run proposes the real one.
func TestCacheDigestConfirmed(t *testing.T) {
	reg, err := fixtures.Serve(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(reg.Close)
	repo, cacheDir := t.TempDir(), t.TempDir()
	pod := filepath.Join(repo, "pod.yaml")
	write := func(name, s string) {
		if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(pod, "image: nginx:1.26.1\n")
	write(filepath.Join(repo, ".imagebot.yaml"), "policies:\n  - match: docker.io/library/nginx\n    pin: digest\n")
	args := func(cmd string, extra ...string) []string {
		return append([]string{cmd, repo, "--cache", cacheDir, "--mirror", "docker.io=" + reg.Mirrors()["docker.io"]}, extra...)
	}

	out, _, code := imagebot(t, environ{}, args("plan", "--output", "json")...)
	var first struct {
		Updates []struct{ Digest string }
	}
	if err := json.Unmarshal([]byte(out), &first); err != nil || code != 0 || len(first.Updates) != 1 {
		t.Fatalf("first plan: exit %d, %v:\n%s", code, err, out)
	}
	real := first.Updates[0].Digest

	forged := "sha256:" + strings.Repeat("a", 64)
	forge(t, cacheDir, real, forged)

	out, _, code = imagebot(t, environ{}, args("apply")...)
	if code != exitPartial || !strings.Contains(out, "not proposed") || !strings.Contains(out, "the cache said "+forged) {
		t.Errorf("apply with a forged cache: exit %d, want %d and the mismatch said:\n%s", code, exitPartial, out)
	}
	if b, _ := os.ReadFile(pod); string(b) != "image: nginx:1.26.1\n" {
		t.Fatalf("apply wrote %q", b)
	}

	// The cache now holds the registry's digest: one HEAD confirms it,
	// and apply writes it.
	out, _, code = imagebot(t, environ{}, args("plan", "--output", "json")...)
	if code != 0 || !strings.Contains(out, `"manifestHead": 1,`) || !strings.Contains(out, real) {
		t.Errorf("plan after the mismatch: exit %d, want 0, one HEAD and %s:\n%s", code, real, out)
	}
	if _, _, code := imagebot(t, environ{}, args("apply")...); code != 0 {
		t.Fatalf("apply: exit %d", code)
	}
	if b, _ := os.ReadFile(pod); string(b) != "image: nginx:1.26.1@"+real+"\n" {
		t.Errorf("apply wrote %q, want the registry's digest", b)
	}
}

// forge replaces digest old by new in every cached listing, with the
// checksum recomputed, as someone who can write the cache directory can.
func forge(t *testing.T, dir, old, new string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(filepath.ToSlash(p), "/tags/") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, body, _ := bytes.Cut(b, []byte("\n"))
		if !bytes.Contains(body, []byte(old)) {
			return nil
		}
		body = bytes.ReplaceAll(body, []byte(old), []byte(new))
		sum := sha256.Sum256(body)
		n++
		return os.WriteFile(p, append([]byte(hex.EncodeToString(sum[:])+"\n"), body...), 0o644)
	})
	if err != nil || n == 0 {
		t.Fatalf("forge: %v, %d listings edited", err, n)
	}
}
