package gitops_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

func signed(o *gitops.RunOptions) { o.SignedCommits = true }

// TestSignedCommits: with SignedCommits, a run as a GitHub App makes the
// same branches as a run that pushes, tree for tree, through GitHub's Git
// Data API alone: no push. Each commit is the App's bot's, on main's tip,
// and verified, by the API and by its signature fetched over git. A rerun
// knows the commits for its own and writes nothing; a newer version moves
// the branch through the API again. A commit made through the API is not
// fetched back: the run fetches as often as one that pushes.
func TestSignedCommits(t *testing.T) {
	t.Parallel()
	pushed, viaAPI := newWorld(t), newWorld(t)
	fetched := pushed.gs.Fetches()
	pushed.runClean(t)
	pushFetches := pushed.gs.Fetches() - fetched
	viaAPI.installApp(t, true)
	o := viaAPI.appOptions(t, appKey(), appID, 0)
	fetched = viaAPI.gs.Fetches()
	res := viaAPI.runAs(t, o, signed)
	for _, err := range res.Failed {
		t.Errorf("failed: %v", err)
	}
	diffSets(t, "opened", res.Opened, allBranches())
	if n := viaAPI.gs.Pushes(); n != 0 {
		t.Errorf("%d pushes over git, want none", n)
	}
	if n := viaAPI.gs.Fetches() - fetched; n != pushFetches {
		t.Errorf("%d fetches for %d commits through the API, %d for as many pushed", n, len(res.Opened), pushFetches)
	}
	key, err := viaAPI.gh.SigningKey()
	if err != nil {
		t.Fatal(err)
	}
	api := viaAPI.client()
	if pushed.sha(t, main_) != viaAPI.sha(t, main_) {
		t.Fatal("the two worlds start from different commits; trees cannot be compared")
	}
	for _, s := range streams {
		want, got := pushed.commit(t, s.Branch), viaAPI.commit(t, s.Branch)
		if got.TreeHash != want.TreeHash {
			t.Errorf("%s: tree %s through the API, %s pushed", s.Branch, got.TreeHash, want.TreeHash)
		}
		if len(got.ParentHashes) != 1 || got.ParentHashes[0].String() != viaAPI.sha(t, main_) {
			t.Errorf("%s: parents %v, want main's tip", s.Branch, got.ParentHashes)
		}
		if got.Message != want.Message {
			t.Errorf("%s: message %q, pushed %q", s.Branch, got.Message, want.Message)
		}
		if got.Author.Name != appBot || got.Author.Email != githubtest.NoreplyEmail(appBot) || got.Committer.Email != got.Author.Email {
			t.Errorf("%s: by %s <%s>, committed by %s", s.Branch, got.Author.Name, got.Author.Email, got.Committer.Email)
		}
		if _, err := got.Verify(key); err != nil {
			t.Errorf("%s: signature over git: %v", s.Branch, err)
		}
		c, _, err := api.Git.GetCommit(viaAPI.ctx, owner, name, got.Hash.String())
		if err != nil || !c.GetVerification().GetVerified() {
			t.Errorf("%s: the API says %+v, %v", s.Branch, c.GetVerification(), err)
		}
	}
	for _, wr := range viaAPI.gh.WriteLog() {
		if wr.Actor != appBot {
			t.Errorf("%s %s by %s", wr.Method, wr.Path, wr.Actor)
		}
	}

	before := viaAPI.counters()
	res = viaAPI.runAs(t, o, signed)
	diffSets(t, "unchanged", res.Unchanged, allBranches())
	if len(res.Foreign) > 0 {
		t.Errorf("its own commits taken for foreign: %v", res.Foreign)
	}
	if after := viaAPI.counters(); after != before {
		t.Errorf("rerun wrote: %+v -> %+v", before, after)
	}

	viaAPI.pushTag(t, "docker.io/library/redis", "7.4.2")
	old := viaAPI.sha(t, redis)
	fetched = viaAPI.gs.Fetches()
	res = viaAPI.runAs(t, o, signed)
	diffSets(t, "updated", res.Updated, []string{redis})
	if n := viaAPI.gs.Fetches() - fetched; n != pushFetches {
		t.Errorf("%d fetches for one commit through the API, want %d as for a run with none", n, pushFetches)
	}
	if c := viaAPI.commit(t, redis); c.Hash.String() == old || c.Author.Name != appBot {
		t.Errorf("redis: %s by %s after the update", c.Hash, c.Author.Name)
	} else if _, err := c.Verify(key); err != nil {
		t.Errorf("redis: %v", err)
	}
	if n := viaAPI.gs.Pushes(); n != 0 {
		t.Errorf("%d pushes over git, want none", n)
	}
}

// TestSignedCommitsLease: a person pushes to a PR's branch after the run
// fetched it, while the run makes its commit through the API. The branch
// is compared with the fetched tip before it is moved: the person's commit
// stays, that PR fails, the others are done.
func TestSignedCommitsLease(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.runClean(t) // pushed, by the configured author: imagebot's all the same
	w.pushTag(t, "docker.io/library/node", "22.2.0")
	w.pushTag(t, "docker.io/library/redis", "7.4.2")
	var theirs string
	o := w.options(t)
	o.HTTPClient = &http.Client{Transport: &onRequest{
		match: func(r *http.Request) bool {
			return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git/commits") && theirs == ""
		},
		do: func() {
			theirs = w.humanPush(t, node, "pin node for the migration", map[string]func(string) string{
				"ci/jobs.yaml": replace("22.1.0", "22.1.0 # pinned"),
			})
		},
	}}
	res := w.runAs(t, o, signed)
	if len(res.Failed) != 1 || !strings.HasPrefix(res.Failed[0].Error(), node+": push") {
		t.Fatalf("failed: %v, want node's", res.Failed)
	}
	diffSets(t, "updated", res.Updated, []string{redis})
	if got := w.sha(t, node); got != theirs {
		t.Errorf("node's branch is %s, not the person's %s", got, theirs)
	}
	if w.gs.Pushes() != len(streams)+1 {
		t.Errorf("%d pushes: the first run's and the person's alone", w.gs.Pushes())
	}
	// GITHUB_TOKEN's commits are github-actions[bot]'s, and signed too.
	if c := w.commit(t, redis); c.Author.Name != "github-actions[bot]" || c.PGPSignature == "" {
		t.Errorf("redis by %s, signature %q", c.Author.Name, c.PGPSignature)
	}
}

// onRequest runs do before the first request that match selects, then
// sends every request on: a person acting in the middle of a run.
type onRequest struct {
	mu    sync.Mutex
	match func(*http.Request) bool
	do    func()
}

func (o *onRequest) RoundTrip(r *http.Request) (*http.Response, error) {
	o.mu.Lock()
	if o.match(r) {
		o.do()
	}
	o.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}
