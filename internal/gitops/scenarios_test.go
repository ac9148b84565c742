package gitops_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
)

const (
	busybox  = "imagebot/docker.io-library-busybox"
	postgres = "imagebot/docker.io-library-postgres"
	redis    = "imagebot/docker.io-library-redis"
)

// withManifests makes the repository the named files of
// testdata/manifests, against the seeded registry, and returns the
// branches of the streams they hold: a scenario about a stream or two
// proves on them what it would on all seventeen, at a fraction of the
// pushes and requests on every host.
func withManifests(t *testing.T, names ...string) (worldOption, []string) {
	t.Helper()
	all := readTree(t, "testdata/manifests")
	files := map[string][]byte{}
	for _, n := range names {
		if all[n] == nil {
			t.Fatalf("testdata/manifests has no %s", n)
		}
		files[n] = all[n]
	}
	var branches []string
	for _, s := range streams {
		if slices.ContainsFunc(s.Files, func(f string) bool { return files[f] != nil }) {
			branches = append(branches, s.Branch)
		}
	}
	return withFiles(files), branches
}

func without(all []string, drop ...string) []string {
	var out []string
	for _, b := range all {
		keep := true
		for _, d := range drop {
			keep = keep && b != d
		}
		if keep {
			out = append(out, b)
		}
	}
	return out
}

func replaceAll(old, new string) func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, old, new) }
}

// TestBaseMoved: the default branch moves under open PRs.
func TestBaseMoved(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		// postgres, busybox and the streams in their files, and the README
		// a person edits: five PRs the base moves under.
		files, branches := withManifests(t, "README.md", "charts/orders-db/values.yaml", "apps/jobs/cronjob.yaml", "apps/storefront/deployment.yaml")
		w := newWorld(t, on, files)
		w.runClean(t)
		numbers := map[string]int{}
		for b, pr := range w.openPRs() {
			numbers[b] = pr.Number
		}

		t.Run("without conflict nothing is pushed", func(t *testing.T) {
			shas := map[string]string{}
			for _, b := range branches {
				shas[b] = w.sha(t, b)
			}
			w.humanPush(t, main_, "docs: say who owns the repository", map[string]func(string) string{
				"README.md": replace("Image tags", "Owned by the platform team. Image tags"),
			})
			before := w.counters()
			res := w.runClean(t)
			if after := w.counters(); after != before {
				t.Errorf("base moved without conflict: %+v -> %+v", before, after)
			}
			diffSets(t, "unchanged", res.Unchanged, branches)
			for b, sha := range shas {
				if got := w.sha(t, b); got != sha {
					t.Errorf("%s moved %s -> %s", b, sha, got)
				}
			}
		})

		t.Run("conflicting hand edit recreates the branch on the new tip", func(t *testing.T) {
			// Someone bumps postgres by hand to another version than the PR's.
			w.humanPush(t, main_, "postgres 15.5 for the CVE fix", map[string]func(string) string{
				"charts/orders-db/values.yaml": replace(`tag: "15.4"`, `tag: "15.5"`),
			})
			if err := w.mergesCleanly(t, postgres); err == nil {
				t.Fatal("the hand edit does not conflict with the PR; the scenario is wrong")
			}
			before := w.counters()
			res := w.runClean(t)
			diffSets(t, "updated", res.Updated, []string{postgres})
			diffSets(t, "unchanged", res.Unchanged, without(branches, postgres))
			if after := w.counters(); after.pushes-before.pushes != 1 {
				t.Errorf("%d pushes, want 1", after.pushes-before.pushes)
			}
			s := streamOf(t, postgres)
			s.From = "15.5"
			w.checkBranch(t, s, "16.2")
			if err := w.mergesCleanly(t, postgres); err != nil {
				t.Errorf("recreated branch still conflicts: %v", err)
			}
			pr := w.openPRs()[postgres]
			if pr.Number != numbers[postgres] || !strings.Contains(pr.Body, `"from":"15.5"`) {
				t.Errorf("PR #%d (want #%d) body:\n%s", pr.Number, numbers[postgres], pr.Body)
			}
			before = w.counters()
			w.runClean(t)
			if after := w.counters(); after != before {
				t.Errorf("rerun after the rebase wrote: %+v -> %+v", before, after)
			}
		})

		t.Run("update made by hand closes the PR", func(t *testing.T) {
			w.humanPush(t, main_, "busybox 1.37.0 everywhere", map[string]func(string) string{
				"apps/jobs/cronjob.yaml":          replaceAll("busybox:1.36.0", "busybox:1.37.0"),
				"apps/storefront/deployment.yaml": replace("busybox:1.36.0", "busybox:1.37.0"),
			})
			res := w.runClean(t)
			diffSets(t, "closed", res.Closed, []string{busybox})
			diffSets(t, "opened", res.Opened, nil)
			pr := w.prs()[busybox]
			if pr.Number != numbers[busybox] || pr.State != "closed" || pr.Merged {
				t.Errorf("busybox PR: #%d %s merged=%v", pr.Number, pr.State, pr.Merged)
			}
			if len(pr.Comments) != 1 || !strings.Contains(pr.Comments[0], "no longer needs") {
				t.Errorf("comments: %q", pr.Comments)
			}
			if w.branchExists(busybox) {
				t.Errorf("branch %s not deleted", busybox)
			}
			before := w.counters()
			res = w.runClean(t)
			if after := w.counters(); after != before {
				t.Errorf("rerun wrote: %+v -> %+v", before, after)
			}
			if len(res.Closed)+len(res.Opened) != 0 {
				t.Errorf("rerun: %+v", res)
			}
		})
	})
}

// TestForeignCommit: a person pushed onto imagebot's branch. The branch is
// theirs from then on.
func TestForeignCommit(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		// redis, and postgres beside it, which goes on as it was.
		files, branches := withManifests(t, "charts/session-cache/values.yaml", "charts/orders-db/values.yaml")
		w := newWorld(t, on, files)
		w.runClean(t)
		pr := w.openPRs()[redis]
		theirs := w.humanPush(t, redis, "more replicas while we are at it", map[string]func(string) string{
			"charts/session-cache/values.yaml": replace("replicaCount: 2", "replicaCount: 3"),
		})
		// Without the person's commit, this would move the branch to 7.4.2.
		w.pushTag(t, "docker.io/library/redis", "7.4.2")

		for run := 1; run <= 2; run++ {
			before := w.counters()
			res := w.runClean(t)
			diffSets(t, "foreign", res.Foreign, []string{redis})
			diffSets(t, "unchanged", res.Unchanged, without(branches, redis))
			after := w.counters()
			if after.pushes != before.pushes {
				t.Errorf("run %d pushed", run)
			}
			if wantWrites := map[int]int{1: 1, 2: 0}[run]; after.writes-before.writes != wantWrites {
				t.Errorf("run %d: %d API writes, want %d", run, after.writes-before.writes, wantWrites)
			}
			if got := w.sha(t, redis); got != theirs {
				t.Errorf("run %d overwrote the branch: %s -> %s", run, theirs, got)
			}
			now := w.prs()[redis]
			if now.Number != pr.Number || now.State != "open" || now.Title != pr.Title {
				t.Errorf("run %d: PR #%d %s %q", run, now.Number, now.State, now.Title)
			}
			if len(now.Comments) != 1 {
				t.Errorf("run %d: %d comments, want exactly 1: %q", run, len(now.Comments), now.Comments)
			} else if !strings.Contains(now.Comments[0], "Update redis to 7.4.2") {
				t.Errorf("comment does not say what imagebot would propose: %q", now.Comments[0])
			}
		}
	})
}

// TestDryRun: reads, writes nothing, and shows what it would do.
func TestDryRun(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		dry := func(o *gitops.RunOptions) { o.DryRun = true }
		// The host's words: GitLab's merge requests are !12, and so are
		// Azure DevOps' pull requests.
		noun, sigil := "pull request", "#"
		switch w.host.kind() {
		case gitops.GitLab:
			noun, sigil = "merge request", "!"
		case azure.Kind:
			sigil = "!"
		}

		t.Run("before any PR", func(t *testing.T) {
			before := w.counters()
			res := w.runClean(t, dry)
			if after := w.counters(); after != before {
				t.Errorf("dry run wrote: %+v -> %+v", before, after)
			}
			diffSets(t, "would open", res.Opened, allBranches())
			if n := len(w.host.changes()); n != 0 {
				t.Errorf("%d PRs", n)
			}
			out := w.out.String()
			for _, s := range streams {
				if w.branchExists(s.Branch) {
					t.Errorf("dry run created %s", s.Branch)
				}
				title := "Update " + shortName(s.Image) + " to " + s.To
				for _, want := range []string{
					"--- " + s.Branch + "\n" + title + "\n",
					"would open " + noun + " \"" + title + "\" from " + s.Branch,
					`<!-- imagebot:v1 {"image":"` + s.Image + `","branch":"` + s.Branch + `"`,
				} {
					if !strings.Contains(out, want) {
						t.Errorf("output lacks %q", want)
					}
				}
				for _, f := range s.Files {
					if !strings.Contains(out, "--- a/"+f+"\n+++ b/"+f+"\n") {
						t.Errorf("output lacks the diff of %s for %s", f, s.Branch)
					}
				}
			}
			if !strings.Contains(out, "\n-              image: docker.io/bitnami/kubectl:1.29.3\r\n+              image: docker.io/bitnami/kubectl:1.30.1\r\n") {
				t.Errorf("output lacks kubectl's diff lines:\n%s", out)
			}
		})

		t.Run("with open PRs and a newer version", func(t *testing.T) {
			w.runClean(t)
			sha := w.sha(t, node)
			pr := w.openPRs()[node]
			w.pushTag(t, "docker.io/library/node", "22.2.0")
			w.out.Reset()
			before := w.counters()
			res := w.runClean(t, dry)
			if after := w.counters(); after != before {
				t.Errorf("dry run wrote: %+v -> %+v", before, after)
			}
			diffSets(t, "would update", res.Updated, []string{node})
			out := w.out.String()
			if want := "would update " + noun + " " + sigil + strconv.Itoa(pr.Number) + ` to "Update node to 22.2.0"`; !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
			if !strings.Contains(out, "-          image: node:20.11.1\n+          image: node:22.2.0\n") {
				t.Errorf("output lacks node's diff:\n%s", out)
			}
			if strings.Contains(out, "--- "+redis+"\n") {
				t.Errorf("output shows an unchanged PR:\n%s", out)
			}
			if w.sha(t, node) != sha || w.openPRs()[node].Title != pr.Title {
				t.Errorf("dry run changed the node PR")
			}
		})
	})
}

// TestForeignBranchOutlivesItsUpdate: a person added a commit to imagebot's
// branch, and later the update itself got made on main by hand. The PR is
// no longer imagebot's to close: deleting the branch would throw away the
// person's commit.
func TestForeignBranchOutlivesItsUpdate(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		files, _ := withManifests(t, "charts/session-cache/values.yaml")
		w := newWorld(t, on, files)
		w.runClean(t)
		pr := w.openPRs()[redis]
		theirs := w.humanPush(t, redis, "more replicas while we are at it", map[string]func(string) string{
			"charts/session-cache/values.yaml": replace("replicaCount: 2", "replicaCount: 3"),
		})
		w.humanPush(t, main_, "redis 7.4.1 by hand", map[string]func(string) string{
			"charts/session-cache/values.yaml": replace("tag: 7.2.4", "tag: 7.4.1"),
		})
		res := w.runClean(t)
		if slices.Contains(res.Closed, redis) {
			t.Errorf("closed %s although it has a person's commit", redis)
		}
		if !w.branchExists(redis) {
			t.Fatalf("deleted %s with the person's commit %s", redis, theirs)
		}
		if got := w.sha(t, redis); got != theirs {
			t.Errorf("branch moved: %s -> %s", theirs, got)
		}
		if now := w.prs()[redis]; now.Number != pr.Number || now.State != "open" {
			t.Errorf("PR #%d is %s", now.Number, now.State)
		}
	})
}

// TestNewerVersionReachesAnotherTagOfTheStream: an open PR moves redis from
// 7.2.4 to 7.4.1 while another file already runs 7.4.1. When 7.4.2 appears,
// both places move, but issue 5 says a newer version updates the open PR: it
// is not closed as "no longer needed", which is untrue.
func TestNewerVersionReachesAnotherTagOfTheStream(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		// redis, and the local stack the second redis goes into.
		files, _ := withManifests(t, "charts/session-cache/values.yaml", "local/compose.yaml")
		w := newWorld(t, on, files)
		w.runClean(t)
		pr := w.openPRs()[redis]
		w.humanPush(t, main_, "local stack: a second redis", map[string]func(string) string{
			"local/compose.yaml": replace("  latest-nginx:\n", "  queue:\n    image: redis:7.4.1\n  latest-nginx:\n"),
		})
		before := w.counters()
		w.runClean(t)
		// Branches that touch local/compose.yaml are rebuilt (the file changed
		// under them); no PR text changes.
		if after := w.counters(); after.writes != before.writes {
			t.Errorf("a current reference made the bot write to the API: %+v -> %+v", before, after)
		}

		w.pushTag(t, "docker.io/library/redis", "7.4.2")
		res := w.runClean(t)
		if len(res.Closed) != 0 {
			t.Errorf("closed %v", res.Closed)
		}
		now := w.prs()[redis]
		if now.Number != pr.Number || now.State != "open" || !strings.Contains(now.Title, "7.4.2") {
			t.Errorf("redis PR #%d (was #%d) is %s: %q", now.Number, pr.Number, now.State, now.Title)
		}
		for _, c := range now.Comments {
			t.Errorf("comment on the redis PR: %q", c)
		}
		var open []string
		for b := range w.openPRs() {
			if strings.HasPrefix(b, redis) && !strings.HasPrefix(b, redis+"-alpine") {
				open = append(open, b)
			}
		}
		t.Logf("open redis PRs: %v (opened %v)", open, res.Opened)
	})
}

// TestNewLocationOnMain: someone adds another nginx:1.25.3 on main while the
// nginx PR is open. The branch is rebuilt to move it too, and the PR body's
// table, which lists every place the PR changes, must list it.
func TestNewLocationOnMain(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		// nginx's two files (and the streams that share them).
		files, _ := withManifests(t, "apps/storefront/deployment.yaml", "clusters/prod/kustomization.yaml")
		w := newWorld(t, on, files)
		w.runClean(t)
		const nginx = "imagebot/docker.io-library-nginx"
		pr := w.openPRs()[nginx]
		w.humanPush(t, main_, "admin console", map[string]func(string) string{
			"apps/storefront/deployment.yaml": replace("        - name: edge-cache\n", "        - name: admin\n          image: nginx:1.25.3\n        - name: edge-cache\n"),
		})
		res := w.runClean(t)
		if !slices.Contains(res.Updated, nginx) {
			t.Errorf("nginx not updated: %+v", res)
		}
		s := streamOf(t, nginx)
		s.Locations++
		w.checkBranch(t, s, s.To)
		now := w.openPRs()[nginx]
		if now.Number != pr.Number {
			t.Errorf("PR #%d, want #%d", now.Number, pr.Number)
		}
		for _, loc := range []string{"apps/storefront/deployment.yaml:20", "apps/storefront/deployment.yaml:24", "clusters/prod/kustomization.yaml:10"} {
			if !strings.Contains(now.Body, "`"+loc+"`") {
				t.Errorf("PR body lacks %s:\n%s", loc, now.Body)
			}
		}
	})
}
