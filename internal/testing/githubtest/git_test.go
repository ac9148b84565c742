package githubtest

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBareReposCompare(t *testing.T) {
	e := setup(t, nil)
	b := BareRepos(e.git.Dir)
	e.branch("a", "1.26.1")
	e.commit("a", "a", "README.md", "two\n")
	e.branch("b", "1.27.0")
	main, _ := b.BranchSHA("acme", "apps", "main")
	tests := []struct {
		name, base, head string
		want             Comparison
	}{
		{"ahead", "main", "a", Comparison{AheadBy: 2, Mergeable: true}},
		{"same", "main", "main", Comparison{Mergeable: true}},
		{"by sha", main, "a", Comparison{AheadBy: 2, Mergeable: true}},
		{"conflicting", "a", "b", Comparison{AheadBy: 1, BehindBy: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := b.Compare("acme", "apps", tc.base, tc.head)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := b.Compare("acme", "apps", "main", "gone"); !errors.Is(err, ErrNoBranch) {
		t.Errorf("missing branch: %v, want ErrNoBranch", err)
	}
	if err := b.DeleteBranch("acme", "apps", "gone"); !errors.Is(err, ErrNoBranch) {
		t.Errorf("delete missing branch: %v, want ErrNoBranch", err)
	}
}

func TestBareReposMerge(t *testing.T) {
	tests := []struct {
		method      string
		wantParents int // of the new tip of main
		wantCommits int // new commits on main
	}{
		{"merge", 2, 3},
		{"squash", 1, 1},
		{"rebase", 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.method, func(t *testing.T) {
			e := setup(t, nil)
			b := BareRepos(e.git.Dir)
			e.branch("feature", "1.26.1")
			e.commit("feature", "feature", "README.md", "two\n")
			e.commit("main", "main", "other.txt", "main moved on\n") // no fast-forward
			before, _ := b.BranchSHA("acme", "apps", "main")
			sha, err := b.Merge("acme", "apps", MergeRequest{Base: "main", Head: "feature", Method: tc.method, Title: "land it"})
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := b.BranchSHA("acme", "apps", "main"); got != sha {
				t.Errorf("main at %s, Merge returned %s", got, sha)
			}
			if n := len(strings.Fields(e.gitRun("show", "-s", "--format=%P", sha))); n != tc.wantParents {
				t.Errorf("%d parents, want %d", n, tc.wantParents)
			}
			if n := e.gitRun("rev-list", "--count", before+".."+sha); n != strconv.Itoa(tc.wantCommits) {
				t.Errorf("%s new commits, want %d", n, tc.wantCommits)
			}
			for _, f := range []string{"README.md", "other.txt", "apps/web/deployment.yaml"} {
				e.gitRun("cat-file", "-e", sha+":"+f)
			}
		})
	}
}

func TestBareReposConflict(t *testing.T) {
	e := setup(t, nil)
	b := BareRepos(e.git.Dir)
	e.branch("a", "1.26.1")
	e.commit("main", "main", "apps/web/deployment.yaml", "image: nginx:1.27.0\n")
	before, _ := b.BranchSHA("acme", "apps", "main")
	for _, method := range []string{"merge", "squash", "rebase"} {
		_, err := b.Merge("acme", "apps", MergeRequest{Base: "main", Head: "a", Method: method, Title: "x"})
		if !errors.Is(err, ErrMergeConflict) {
			t.Errorf("%s: %v, want ErrMergeConflict", method, err)
		}
		if after, _ := b.BranchSHA("acme", "apps", "main"); after != before {
			t.Errorf("%s: a conflicting merge moved main", method)
		}
	}
	if out := e.gitRun("worktree", "list"); strings.Count(out, "\n") > 0 {
		t.Errorf("rebase left worktrees behind:\n%s", out)
	}
}

// TestBareReposSeesNewPacks: the fake keeps each repository's storage open
// across requests (gitread.go). Commits that reach the repository in a
// pack file after that, as a push of many objects or a repack leaves them,
// are still found.
func TestBareReposSeesNewPacks(t *testing.T) {
	e := setup(t, nil)
	b := BareRepos(e.git.Dir)
	repack := func() {
		e.gitRun("repack", "-a", "-d", "-q")
		e.gitRun("prune-packed")
		if n := e.gitRun("count-objects"); n != "0 objects, 0 kilobytes" {
			t.Fatalf("objects left loose after the repack: %s", n)
		}
	}
	repack()
	if _, err := b.Compare("acme", "apps", "main", "main"); err != nil {
		t.Fatal(err) // opens the storage, which lists the pack of main
	}
	sha := e.branch("a", "1.26.1")
	repack() // one new pack with everything; the old one is gone
	got, err := b.Compare("acme", "apps", "main", sha)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Comparison{AheadBy: 1, Mergeable: true}); got != want {
		t.Errorf("Compare = %+v, want %+v", got, want)
	}
	if ok, err := b.IsAncestor("acme", "apps", "main", sha); err != nil || !ok {
		t.Errorf("IsAncestor(main, %s) = %v, %v; want true", sha, ok, err)
	}
	if ok, err := b.IsAncestor("acme", "apps", sha, "main"); err != nil || ok {
		t.Errorf("IsAncestor(%s, main) = %v, %v; want false", sha, ok, err)
	}
}
