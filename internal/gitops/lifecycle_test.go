package gitops_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/rewrite"
)

const (
	kubectl = "imagebot/docker.io-bitnami-kubectl"
	node    = "imagebot/docker.io-library-node"
)

// TestLifecycle is issue 5's "Done when" on the held-out repository in
// testdata/manifests: 17 PRs, an idempotent rerun, a declined PR that stays
// declined, a newer version that moves the open PR, and merge rounds that
// end where `apply` ends, minus the declined stream. Steps depend on each
// other, as the runs of one repository do.
func TestLifecycle(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		lifecycle(t, on)
	})
}

// TestLifecycleHTTPBackend is the lifecycle against git's own
// http-backend, end to end, on one host: what it holds the in-process
// remote to is git's side of the run (fetches, leased pushes), which is
// the same whichever forge's API the run talks to; TestLifecycle runs the
// forges' side on all of them, and make test-all runs every test, each
// host included, on http-backend.
func TestLifecycleHTTPBackend(t *testing.T) {
	t.Parallel()
	lifecycle(t, withHTTPBackend())
}

func lifecycle(t *testing.T, opts ...worldOption) {
	// A small page size makes every listing the bot does span pages.
	w := newWorld(t, append(opts, withPerPage(5))...)
	numbers := map[string]int{}

	t.Run("first run opens one PR per stream", func(t *testing.T) {
		before := w.counters()
		res := w.runClean(t)

		var got []stream
		for _, u := range w.plan.Updates {
			s := stream{Image: u.Image, From: u.From, To: u.To, Locations: len(u.Locations)}
			for _, l := range u.Locations {
				if !slices.Contains(s.Files, l.File) {
					s.Files = append(s.Files, l.File)
				}
			}
			slices.Sort(s.Files)
			got = append(got, s)
		}
		want := slices.Clone(streams)
		for i := range want {
			want[i].Branch = ""
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("plan of testdata/manifests (-want +got):\n%s", d)
		}

		diffSets(t, "opened", res.Opened, allBranches())
		if len(res.Updated)+len(res.Unchanged)+len(res.Closed)+len(res.Declined)+len(res.Foreign) != 0 {
			t.Errorf("first run did more than open: %+v", res)
		}
		prs := w.host.changes()
		if len(prs) != len(streams) {
			t.Fatalf("%d PRs, want %d", len(prs), len(streams))
		}
		for _, pr := range prs {
			s := streamOf(t, pr.Head)
			numbers[pr.Head] = pr.Number
			if pr.State != "open" || pr.Base != main_ {
				t.Errorf("#%d: state %s base %s", pr.Number, pr.State, pr.Base)
			}
			if want := "Update " + shortName(s.Image) + " to " + s.To; pr.Title != want {
				t.Errorf("#%d: title %q, want %q", pr.Number, pr.Title, want)
			}
			for _, f := range s.Files {
				if !strings.Contains(pr.Body, "`"+f+":") {
					t.Errorf("#%d: body has no location in %s:\n%s", pr.Number, f, pr.Body)
				}
			}
			if !strings.Contains(pr.Body, "<!-- imagebot:v1 ") || !strings.Contains(pr.Body, "`"+s.From+"`") || !strings.Contains(pr.Body, "`"+s.To+"`") {
				t.Errorf("#%d: body lacks marker or versions:\n%s", pr.Number, pr.Body)
			}
			w.checkBranch(t, s, s.To)
		}
		after := w.counters()
		if got, want := after.pushes-before.pushes, len(streams); got != want {
			t.Errorf("%d pushes, want %d", got, want)
		}
		if got, want := after.writes-before.writes, len(streams); got != want {
			t.Errorf("%d API writes, want %d (one POST per PR)", got, want)
		}
	})

	t.Run("rerun changes nothing", func(t *testing.T) {
		before := w.counters()
		res := w.runClean(t)
		if after := w.counters(); after != before {
			t.Errorf("rerun wrote: %+v -> %+v", before, after)
		}
		diffSets(t, "unchanged", res.Unchanged, allBranches())
		if len(res.Opened)+len(res.Updated)+len(res.Closed) != 0 {
			t.Errorf("rerun: %+v", res)
		}
		if n := len(w.host.changes()); n != len(streams) {
			t.Errorf("%d PRs after rerun", n)
		}
	})

	t.Run("closed PR is not proposed again", func(t *testing.T) {
		if err := w.host.close(numbers[kubectl]); err != nil {
			t.Fatal(err)
		}
		sha := w.sha(t, kubectl)
		for range 2 {
			before := w.counters()
			res := w.runClean(t)
			if after := w.counters(); after != before {
				t.Errorf("run after a decline wrote: %+v -> %+v", before, after)
			}
			diffSets(t, "declined", res.Declined, []string{kubectl})
			if slices.Contains(res.Opened, kubectl) || slices.Contains(res.Unchanged, kubectl) {
				t.Errorf("declined stream handled anyway: %+v", res)
			}
		}
		prs := w.host.changes()
		if len(prs) != len(streams) {
			t.Errorf("%d PRs, want %d", len(prs), len(streams))
		}
		if pr := w.prs()[kubectl]; pr.State != "closed" || pr.Merged || pr.Number != numbers[kubectl] {
			t.Errorf("declined PR: %+v", pr)
		}
		if got := w.sha(t, kubectl); got != sha {
			t.Errorf("declined branch moved: %s -> %s", sha, got)
		}
	})

	t.Run("newer version moves the open PR", func(t *testing.T) {
		oldSHA := w.sha(t, node)
		w.pushTag(t, "docker.io/library/node", "22.2.0")
		before := w.counters()
		res := w.runClean(t)
		diffSets(t, "updated", res.Updated, []string{node})
		diffSets(t, "opened", res.Opened, nil)
		after := w.counters()
		if after.pushes-before.pushes != 1 || after.writes-before.writes != 1 {
			t.Errorf("newer version: %d pushes, %d writes; want one force-push and one edit", after.pushes-before.pushes, after.writes-before.writes)
		}
		pr := w.openPRs()[node]
		if pr.Number != numbers[node] {
			t.Errorf("node's PR is #%d, want the same #%d", pr.Number, numbers[node])
		}
		if pr.Title != "Update node to 22.2.0" || !strings.Contains(pr.Body, `"to":"22.2.0"`) {
			t.Errorf("PR not retitled: %q\n%s", pr.Title, pr.Body)
		}
		if n := len(w.host.changes()); n != len(streams) {
			t.Errorf("%d PRs, want %d", n, len(streams))
		}
		if sha := w.sha(t, node); sha == oldSHA || pr.HeadSHA != sha {
			t.Errorf("branch %s -> %s, PR head %s", oldSHA, sha, pr.HeadSHA)
		}
		s := streamOf(t, node)
		w.checkBranch(t, s, "22.2.0")
	})

	t.Run("merge rounds end where apply ends", func(t *testing.T) {
		// A round is what people merge between two runs: up to three
		// PRs, oldest first, each that still merges cleanly onto main as
		// the ones before it left it (the first always does: the last run
		// kept it so). Several base moves at once are what a run meets
		// after a busy hour, and five or six rounds prove what seventeen
		// did, at a third of the runs and git checks.
		for round := 1; ; round++ {
			open := w.openPRs()
			if len(open) == 0 {
				break
			}
			if round > len(streams) {
				t.Fatalf("still %d open PRs after %d rounds", len(open), round)
			}
			byAge := slices.SortedFunc(maps.Values(open), func(a, b hostPR) int { return a.Number - b.Number })
			var merged []string
			for i, pr := range byAge {
				if len(merged) == 3 {
					break
				}
				if i > 0 {
					if _, err := w.tryGit("merge-tree", "--write-tree", "main", pr.Head); err != nil {
						continue // conflicts with what this round merged: the next run rebases it
					}
				}
				if err := w.host.merge(pr.Number); err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
				merged = append(merged, pr.Head)
			}
			res := w.runClean(t)
			t.Logf("round %d: merged %v, updated %v", round, merged, res.Updated)
			if len(res.Opened)+len(res.Closed) != 0 {
				t.Errorf("round %d (merged %v): opened %v closed %v", round, merged, res.Opened, res.Closed)
			}
			diffSets(t, "declined", res.Declined, []string{kubectl})
			left := w.openPRs()
			if len(left) != len(open)-len(merged) {
				t.Errorf("round %d: %d open PRs, want %d", round, len(left), len(open)-len(merged))
			}
			for b, pr := range left {
				if pr.Number != numbers[b] {
					t.Errorf("round %d: %s has PR #%d, want #%d", round, b, pr.Number, numbers[b])
				}
				if n := w.ahead(t, b); n != 1 {
					t.Errorf("round %d: %s is %d commits ahead", round, b, n)
				}
				// Every remaining PR still merges cleanly.
				if err := w.mergesCleanly(t, b); err != nil {
					t.Errorf("round %d: %s conflicts with main: %v", round, b, err)
				}
			}
		}

		// apply on a fresh copy of the original repository, with a plan
		// from the registry as it is now, without the declined stream.
		dir := t.TempDir()
		for f, b := range w.files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, _ := w.planDir(t, dir)
		var changes []plan.Change
		for _, u := range p.Updates {
			if u.Image == streamOf(t, kubectl).Image {
				continue
			}
			changes = append(changes, u.Changes...)
		}
		if _, err := rewrite.Files(dir, changes); err != nil {
			t.Fatal(err)
		}
		want := readTree(t, dir)
		got := map[string][]byte{}
		for _, f := range strings.Fields(w.git(t, "ls-tree", "-r", "--name-only", "main")) {
			b, err := w.rawGit("cat-file", "blob", "main:"+f)
			if err != nil {
				t.Fatal(err)
			}
			got[f] = b
		}
		if d := cmp.Diff(stringMap(want), stringMap(got)); d != "" {
			t.Errorf("main after merge rounds differs from apply (-apply +main):\n%s", d)
		}
		if !strings.Contains(string(got["apps/jobs/cronjob.yaml"]), "kubectl:1.29.3\r\n") {
			t.Errorf("declined kubectl update reached main")
		}
		if cmp.Equal(stringMap(got), stringMap(w.files)) {
			t.Errorf("main is still the original repository")
		}
	})

	t.Run("declined stream gets a new PR for a newer version", func(t *testing.T) {
		w.pushTag(t, "docker.io/bitnami/kubectl", "1.30.2")
		maxNumber := 0
		for _, pr := range w.host.changes() {
			maxNumber = max(maxNumber, pr.Number)
		}
		res := w.runClean(t)
		diffSets(t, "opened", res.Opened, []string{kubectl})
		diffSets(t, "declined", res.Declined, nil)
		pr := w.openPRs()[kubectl]
		if pr.Number <= maxNumber || pr.Title != "Update bitnami/kubectl to 1.30.2" {
			t.Errorf("new PR #%d %q, want a new number above #%d", pr.Number, pr.Title, maxNumber)
		}
		old := w.host.changes()[numbers[kubectl]-1]
		if old.State != "closed" || old.Merged {
			t.Errorf("declined PR #%d is %s now", old.Number, old.State)
		}
		w.checkBranch(t, streamOf(t, kubectl), "1.30.2")
		if len(w.openPRs()) != 1 {
			t.Errorf("open PRs: %v", slices.Collect(maps.Keys(w.openPRs())))
		}
	})
}

func stringMap(m map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

// shortName is how a title names an image; written out independently of
// the package's own helper.
func shortName(image string) string {
	for _, p := range []string{"docker.io/library/", "docker.io/"} {
		if s, ok := strings.CutPrefix(image, p); ok {
			return s
		}
	}
	return image
}
