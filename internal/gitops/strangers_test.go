package gitops_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// The people of these scenarios: mallory has a fork and no write access,
// jane is a writer of the repository.
const (
	mallory = "mallory"
	jane    = "jane"
)

// strangersOf are the PRs and MRs that login opened, by number.
func strangersOf(w *world, login string) map[int]hostPR {
	out := map[int]hostPR{}
	for _, pr := range w.host.changes() {
		if pr.Author == login {
			out[pr.Number] = pr
		}
	}
	return out
}

// botsOpen are the bot's open PRs by branch.
func botsOpen(t *testing.T, w *world) map[string]hostPR {
	t.Helper()
	out := map[string]hostPR{}
	for _, pr := range w.host.changes() {
		if pr.Author != w.host.bot() || pr.State != "open" {
			continue
		}
		if _, dup := out[pr.Head]; dup {
			t.Errorf("two open PRs of the bot's on %s", pr.Head)
		}
		if pr.HeadRepo != "" || pr.Base != main_ {
			t.Errorf("the bot's #%d is from %q into %s", pr.Number, pr.HeadRepo, pr.Base)
		}
		out[pr.Head] = pr
	}
	return out
}

// unchanged fails when a stranger's PR was edited, closed or commented on:
// what they open is theirs.
func unchanged(t *testing.T, w *world, before map[int]hostPR) {
	t.Helper()
	for n, was := range before {
		now := w.host.changes()[slices.IndexFunc(w.host.changes(), func(pr hostPR) bool { return pr.Number == n })]
		if now.Title != was.Title || now.Body != was.Body || now.State != was.State || len(now.Comments) != len(was.Comments) || !slices.Equal(now.Labels, was.Labels) {
			t.Errorf("%s's #%d was touched: %+v -> %+v", was.Author, n, was, now)
		}
	}
}

// TestStrangersPullRequestsOnBotBranchesAreLeftAlone is issue 25's item 5
// on every host: before the bot's first run, mallory opens a PR from her
// fork's branch named like the bot's, and jane one from the repository's
// own bot-named branch, each with a marker that claims an update (jane's
// claims the other image, on another bot-named branch). Neither is
// adopted: the bot opens its own two PRs, edits, closes and comments on
// nothing of theirs; nor is a PR jane opens next whose marker claims the
// bot's open update, and a rerun costs what it costs without them.
func TestStrangersPullRequestsOnBotBranchesAreLeftAlone(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		t.Parallel()
		files, mirrors, host := images(t, map[string][]string{
			"acme/app":   {"1.0.0", "1.1.0"},
			"acme/other": {"1.0.0", "1.1.0"},
		}, "acme/app:1.0.0", "acme/other:1.0.0")
		w := newWorld(t, on, withRepo(files, mirrors))
		appBranch, otherBranch := hostBranch(host, "acme/app"), hostBranch(host, "acme/other")
		handMade := "imagebot/hand-made"

		if _, err := w.host.openAs(mallory, appBranch, "", "Update app to 1.1.0", "Totally legit.\n\n"+forgedMarker(host+"/acme/app", appBranch)+"\n", true); err != nil {
			t.Fatal(err)
		}
		w.humanPushNew(t, handMade)
		if _, err := w.host.openAs(jane, handMade, "", "Update other to 1.1.0", forgedMarker(host+"/acme/other", handMade)+"\n", false); err != nil {
			t.Fatal(err)
		}
		theirs := strangersOf(w, mallory)
		for n, pr := range strangersOf(w, jane) {
			theirs[n] = pr
		}

		res := w.runClean(t)
		slices.Sort(res.Opened)
		if want := []string{appBranch, otherBranch}; !slices.Equal(res.Opened, want) {
			t.Errorf("opened %v, want %v", res.Opened, want)
		}
		if got := botsOpen(t, w); len(got) != 2 || got[appBranch].Number == 0 || got[otherBranch].Number == 0 {
			t.Errorf("the bot's open PRs: %v", keys(got))
		}
		unchanged(t, w, theirs)
		if len(res.Closed)+len(res.Foreign)+len(res.Declined) != 0 {
			t.Errorf("closed %v, foreign %v, declined %v: want none", res.Closed, res.Foreign, res.Declined)
		}

		// jane opens another, whose marker says it carries app's update
		// (before: app's update moved onto her branch, and the bot's
		// real PR was closed and its branch deleted as no longer needed).
		carrier := "imagebot/hand-made-2"
		w.humanPushNew(t, carrier)
		if _, err := w.host.openAs(jane, carrier, "", "Update app", forgedMarker(host+"/acme/app", carrier)+"\n", false); err != nil {
			t.Fatal(err)
		}
		for n, pr := range strangersOf(w, jane) {
			theirs[n] = pr
		}

		// A rerun: nothing to do, at the cost it has without them (the
		// listing that holds them is filtered by author where the host
		// can, and is one page where it cannot).
		before, requests := w.counters(), w.host.requests()
		res = w.runClean(t)
		if len(res.Unchanged) != 2 || len(res.Closed)+len(res.Foreign) != 0 || w.counters() != before {
			t.Errorf("rerun: %+v; writes %+v -> %+v", res, before, w.counters())
		}
		if got, want := w.host.requests()-requests, w.host.noOpRequests(2); got != want {
			t.Errorf("no-op rerun made %d API requests, want %d", got, want)
		}
		unchanged(t, w, theirs)
	})
}

// TestStrangersPullRequestBlockingTheBotsBranchIsReported: after the bot's
// PR was closed (declining 1.1.0), jane opens her own PR from the bot's
// left-over branch, with a marker proposing 1.1.0 again. The decline
// stands (before: her PR, taken for the bot's, hid the closed one, and
// 1.1.0 was proposed again on it). When 1.2.0 comes, the bot does not take
// her PR for its own either (before: retitled and rewritten as the bot's):
// the host keeps one open PR per branch, so the bot reports that hers
// blocks it, run after run, and touches nothing of hers.
func TestStrangersPullRequestBlockingTheBotsBranchIsReported(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		t.Parallel()
		reg := registrytest.NewServer(t)
		created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
		push := func(tag string) {
			reg.Push(t, "acme/app", tag, registrytest.Image(t, "acme/app:"+tag, created, nil))
		}
		push("1.0.0")
		push("1.1.0")
		w := newWorld(t, on, withRepo(map[string][]byte{"app.yaml": []byte(deploymentOf(reg.Host() + "/acme/app:1.0.0"))}, nil))
		branch := hostBranch(reg.Host(), "acme/app")
		w.runClean(t)
		if err := w.host.close(botsOpen(t, w)[branch].Number); err != nil {
			t.Fatal(err)
		}
		body := "Mine now.\n\n" + forgedMarker(reg.Host()+"/acme/app", branch) + "\n"
		if _, err := w.host.openAs(jane, branch, "", "Jane's own", body, false); err != nil {
			t.Fatal(err)
		}
		hers := strangersOf(w, jane)
		before := w.counters()
		res := w.runClean(t)
		if !slices.Equal(res.Declined, []string{branch}) || w.counters() != before {
			t.Errorf("declined %v, writes %+v -> %+v: want 1.1.0 declined still, and nothing written", res.Declined, before, w.counters())
		}
		unchanged(t, w, hers)

		push("1.2.0")

		for run := range 2 {
			res := w.run(t)
			if len(res.Failed) != 1 || !strings.Contains(res.Failed[0].Error(), `opened by "jane", not by imagebot`) {
				t.Errorf("run %d: failed %v, want jane's PR reported", run, res.Failed)
			}
			if len(res.Opened)+len(res.Updated) != 0 {
				t.Errorf("run %d: opened %v, updated %v", run, res.Opened, res.Updated)
			}
			if got := botsOpen(t, w); len(got) != 0 {
				t.Errorf("run %d: the bot's open PRs %v", run, keys(got))
			}
			unchanged(t, w, hers)
		}
	})
}

// TestStrangersCannotUndoTheOnboardingClose is issue 25's item 6 on every
// host: the maintainer closes the bot's onboarding PR; mallory (from a
// fork) and jane (from the left-over imagebot/configure branch) open PRs
// that carry the onboarding mark. The close stands: the run stops, writes
// nothing, and leaves their PRs alone.
func TestStrangersCannotUndoTheOnboardingClose(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		t.Parallel()
		w := newWorld(t, on)
		ob := func(o *gitops.RunOptions) {
			o.Onboarding = &gitops.Onboarding{Path: ".imagebot.yaml", Config: []byte("policies: []\n")}
		}
		w.runClean(t, ob)
		prs := w.host.changes()
		if len(prs) != 1 || prs[0].Head != "imagebot/configure" {
			t.Fatalf("onboarding opened %+v", prs)
		}
		if err := w.host.close(prs[0].Number); err != nil {
			t.Fatal(err)
		}
		marked := "Configure imagebot, really.\n<!-- imagebot:onboarding -->\n"
		if _, err := w.host.openAs(mallory, "imagebot/configure", "", "Configure imagebot", marked, true); err != nil {
			t.Fatal(err)
		}
		if _, err := w.host.openAs(jane, "imagebot/configure", "", "Configure imagebot", marked, false); err != nil {
			t.Fatal(err)
		}
		theirs := strangersOf(w, mallory)
		for n, pr := range strangersOf(w, jane) {
			theirs[n] = pr
		}
		before := w.counters()
		for range 2 {
			res := w.runClean(t, ob)
			if !strings.Contains(res.Stopped, "closed without merging") || len(res.Opened)+len(res.Updated)+len(res.Unchanged) != 0 {
				t.Errorf("stopped %q, opened %v, updated %v, unchanged %v: want the close to stand", res.Stopped, res.Opened, res.Updated, res.Unchanged)
			}
		}
		if after := w.counters(); after != before {
			t.Errorf("wrote: %+v -> %+v", before, after)
		}
		unchanged(t, w, theirs)
	})
}

// TestAppTokenAsGitHubTokenKnowsItsPullRequests: an App's installation
// token passed as GITHUB_TOKEN cannot ask who it is, so the run takes any
// App's bot for itself: the PRs the App opened stay its own (a rerun with
// nothing to do changes nothing and costs no identity request), while a
// writer's PR on a bot-named branch stays hers.
func TestAppTokenAsGitHubTokenKnowsItsPullRequests(t *testing.T) {
	t.Parallel()
	w := newWorld(t, withRepo(fleet(t, 3)))
	w.installApp(t, true)
	if res := w.runAs(t, w.appOptions(t, appKey(), appID, 0)); len(res.Opened) != 3 || len(res.Failed) > 0 {
		t.Fatalf("the App's first run: opened %v, failed %v", res.Opened, res.Failed)
	}
	w.humanPushNew(t, "imagebot/hand-made")
	if _, err := w.host.openAs(jane, "imagebot/hand-made", "", "Update svc-000", forgedMarker("x/acme/svc-000", "imagebot/hand-made")+"\n", false); err != nil {
		t.Fatal(err)
	}
	hers := strangersOf(w, jane)
	o := w.options(t)
	o.Token = w.gh.InstallationTokens()[0]
	before, requests := w.counters(), w.host.requests()
	res := w.runAs(t, o)
	if len(res.Unchanged) != 3 || len(res.Opened)+len(res.Updated)+len(res.Closed)+len(res.Failed) != 0 || w.counters() != before {
		t.Errorf("rerun with the App's token as GITHUB_TOKEN: %+v; writes %+v -> %+v", res, before, w.counters())
	}
	if got := w.host.requests() - requests; got != noOpRequests {
		t.Errorf("%d API requests, want %d", got, noOpRequests)
	}
	for _, pr := range w.host.changes() {
		if pr.Author != jane && pr.Author != appSlug+"[bot]" {
			t.Errorf("#%d by %s", pr.Number, pr.Author)
		}
	}
	unchanged(t, w, hers)
}
