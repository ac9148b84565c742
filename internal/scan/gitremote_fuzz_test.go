package scan

import (
	"strings"
	"testing"
)

// FuzzReadRemote: any kustomization entry reads without a panic, and a
// revision found is the bytes at its offset.
func FuzzReadRemote(f *testing.F) {
	for _, s := range []string{
		"github.com/a/b//c?ref=v1", "https://github.com/a/b.git//x?timeout=1&ref=v2", "git@github.com:a/b.git//c?ref=v3",
		"https://github.com/o/r/releases/download/v1/x.yaml", "https://raw.githubusercontent.com/o/r/refs/heads/main/x",
		"https://h/o/r/raw/branch/main/x", "https://h/o/r/raw/refs/tags", "ssh://git@h:22/a/b//c?ref=", "../base",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, ok := readRemote(s)
		if !ok || r.start < 0 {
			return
		}
		if r.start+len(r.rev) > len(s) || (r.notTag == "" && s[r.start:r.start+len(r.rev)] != r.rev) {
			t.Fatalf("%q: revision %q at %d", s, r.rev, r.start)
		}
		gitRepoURL(r.repo, r.bare)
		_ = strings.TrimSpace(r.repo)
	})
}
