package gitops_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// git runs the git CLI in the bare repository on the remote.
func (w *world) git(t *testing.T, args ...string) string {
	t.Helper()
	out, err := w.tryGit(args...)
	if err != nil {
		t.Fatalf("git %s: %v", strings.Join(args, " "), err)
	}
	return out
}

func (w *world) tryGit(args ...string) (string, error) {
	out, err := w.rawGit(args...)
	return strings.TrimSpace(string(out)), err
}

// rawGit returns git's stdout byte for byte.
func (w *world) rawGit(args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = w.gs.Dir(owner, name)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_DIR="+cmd.Dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, errors.New(strings.TrimSpace(stderr.String()) + ": " + err.Error())
	}
	return out, nil
}

// checkBranch asserts that branch is exactly one commit on top of main's
// tip, made by the configured author, and that it changes only s's tag in
// s's files, turning s.From into to in every one of s's locations.
func (w *world) checkBranch(t *testing.T, s stream, to string) {
	t.Helper()
	if n := w.ahead(t, s.Branch); n != 1 {
		t.Errorf("%s: %d commits ahead of main, want 1", s.Branch, n)
	}
	c := w.commit(t, s.Branch)
	parent, err := c.Parent(0)
	if err != nil {
		t.Fatalf("%s: %v", s.Branch, err)
	}
	if tip := w.commit(t, main_); parent.Hash != tip.Hash {
		t.Errorf("%s: parent %s is not main's tip %s", s.Branch, parent.Hash, tip.Hash)
	}
	subject, _, _ := strings.Cut(c.Message, "\n")
	who := fmt.Sprintf("%s <%s>|%s <%s>|%s", c.Author.Name, c.Author.Email, c.Committer.Name, c.Committer.Email, subject)
	wantWho := botAuthor.Name + " <" + botAuthor.Email + ">"
	if want := wantWho + "|" + wantWho + "|Update " + s.Image + " to " + to; who != want {
		t.Errorf("%s: commit %q, want %q", s.Branch, who, want)
	}
	changed := changedFiles(t, parent, c)
	if !slices.Equal(changed, s.Files) {
		t.Errorf("%s changes %v, want %v", s.Branch, changed, s.Files)
	}
	locs := 0
	for _, f := range changed {
		locs += tagOnlyDiff(t, s.Branch+": "+f, fileOf(t, parent, f), fileOf(t, c, f), s.From, to)
	}
	if locs != s.Locations {
		t.Errorf("%s: %d lines changed, want %d", s.Branch, locs, s.Locations)
	}
}

// tagOnlyDiff checks that after is before with from replaced by to on some
// lines and nothing else changed, and returns how many lines changed.
func tagOnlyDiff(t *testing.T, what, before, after, from, to string) int {
	t.Helper()
	bl, al := strings.Split(before, "\n"), strings.Split(after, "\n")
	if len(bl) != len(al) {
		t.Errorf("%s: %d lines became %d", what, len(bl), len(al))
		return 0
	}
	n := 0
	for i := range bl {
		if bl[i] == al[i] {
			continue
		}
		n++
		if want := strings.Replace(bl[i], from, to, 1); al[i] != want || !strings.Contains(bl[i], from) {
			t.Errorf("%s:%d: %q became %q, want only %s -> %s", what, i+1, bl[i], al[i], from, to)
		}
	}
	return n
}

// assertNoToken: the token is in no log line, no output, no PR text and not
// in the clone's git config.
func (w *world) assertNoToken() {
	t := w.t
	if strings.Contains(w.logs.String(), token) {
		t.Errorf("token in log output:\n%s", w.logs.String())
	}
	if strings.Contains(w.out.String(), token) {
		t.Errorf("token in Out")
	}
	for _, pr := range w.host.changes() {
		text := pr.Title + pr.Body + strings.Join(pr.Comments, "\n")
		if strings.Contains(text, token) {
			t.Errorf("token in PR #%d", pr.Number)
		}
	}
	cfg, err := os.ReadFile(filepath.Join(w.clone, ".git", "config"))
	if err != nil {
		t.Error(err)
	}
	if strings.Contains(string(cfg), token) {
		t.Errorf("token in .git/config:\n%s", cfg)
	}
}

// sorted returns a sorted copy.
func sorted(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

func diffSets(t *testing.T, what string, got, want []string) {
	t.Helper()
	if d := cmp.Diff(sorted(want), sorted(got), cmpopts.EquateEmpty()); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}
