package gitops_test

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/dashboard"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

// dashRun is a run as cmd/bot's with the dashboard on: the dashboard is
// read before the plan, and kept by Run. On a host without issues
// (hostCaps.issues) it checks what the run does there instead: it says
// the dashboard is off in one line, and writes no issue.
func (w *world) dashRun(t *testing.T, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	logged := len(w.logs.String())
	s, p, reg := w.open(t)
	d, err := s.Dashboard(w.ctx, "imagebot dashboard")
	if err != nil {
		t.Fatal(err)
	}
	res := w.finish(t, s, p, reg, append([]func(*gitops.RunOptions){func(o *gitops.RunOptions) {
		o.Dashboard, o.DashboardTitle = d, "imagebot dashboard"
	}}, edit...)...)
	if !w.host.caps().issues {
		w.checkDashboardOff(t, d, res, w.logs.String()[logged:])
	}
	return res
}

// checkDashboardOff: on a host without issues a run keeps no dashboard,
// and says so in one line of its log, which names no setting to change.
func (w *world) checkDashboardOff(t *testing.T, d *gitops.Dashboard, res *gitops.Result, log string) {
	t.Helper()
	if !d.Off || !d.NoTracker || res.Dashboard != 0 || len(w.host.issues()) != 0 {
		t.Errorf("no issue tracker: dashboard %+v, result's dashboard %d, %d issues", d, res.Dashboard, len(w.host.issues()))
	}
	for _, err := range res.Failed {
		if errors.Is(err, gitops.ErrIssuesOff) {
			t.Errorf("the run tried to write a dashboard: %v", err)
		}
	}
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "dashboard off") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 || !strings.Contains(lines[0], "has no issue tracker") || strings.Contains(lines[0], "Turn issues on") {
		t.Errorf("the run says the dashboard is off in %d lines, want one that names no setting:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// dashboardIssue is the bot's one dashboard issue; it fails on none or two.
func (w *world) dashboardIssue(t *testing.T) hostIssue {
	t.Helper()
	var found []hostIssue
	for _, is := range w.host.issues() {
		if is.Author == w.host.bot() && dashboard.HasMarker(is.Body) {
			found = append(found, is)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d dashboard issues by the bot, want 1", len(found))
	}
	return found[0]
}

// tick ticks the box of id ("open:BRANCH", "again:BRANCH@TAG") as a person would.
func (w *world) tick(t *testing.T, id string) {
	t.Helper()
	is := w.dashboardIssue(t)
	box := "- [ ] <!-- " + id + " -->"
	if !strings.Contains(is.Body, box) {
		t.Fatalf("the dashboard has no box %q:\n%s", box, is.Body)
	}
	body := strings.Replace(is.Body, box, "- [x] <!-- "+id+" -->", 1)
	if err := w.host.editIssue(is.Number, "", &body); err != nil {
		t.Fatal(err)
	}
}

func maxOpen(n int) func(*gitops.RunOptions) { return func(o *gitops.RunOptions) { o.MaxOpen = n } }

// TestOnboardAndDashboard is issue 20's story: a repository without a
// config gets exactly the onboarding PR; once it is merged, maxOpen 5
// opens five PRs and the dashboard lists the rest; ticking one opens it; a
// rerun with nothing new writes nothing; closing a PR declines its version
// on the dashboard, and ticking "propose again" proposes it again.
func TestOnboardAndDashboard(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)

		// First run: no config, no dashboard: the onboarding PR, nothing else.
		s, p, reg := w.open(t)
		d, err := s.Dashboard(w.ctx, "imagebot dashboard")
		if err != nil || d.Number != 0 {
			t.Fatalf("dashboard before any run: %+v, %v", d, err)
		}
		init, err := adopt.Init(w.ctx, s.FS(), adopt.Options{})
		if err != nil {
			t.Fatal(err)
		}
		onboarding := func(o *gitops.RunOptions) {
			o.Onboarding = &gitops.Onboarding{Path: ".imagebot.yaml", Config: init.Config}
		}
		w.finish(t, s, p, reg, onboarding)
		prs := w.host.changes()
		if len(prs) != 1 || prs[0].Title != "Configure imagebot" || prs[0].Head != "imagebot/configure" {
			t.Fatalf("first run opened %+v, want the onboarding PR alone", prs)
		}
		body := prs[0].Body
		for _, want := range []string{"Update nginx to 1.26.1", "Welcome to imagebot", "### What happens once this is merged"} {
			if !strings.Contains(body, want) {
				t.Errorf("onboarding body lacks %q:\n%s", want, body)
			}
		}
		// A rerun before the merge changes nothing.
		before := w.counters()
		w.run(t, onboarding)
		if after := w.counters(); after != before {
			t.Errorf("onboarding rerun wrote: %+v -> %+v", before, after)
		}
		if err := w.host.merge(prs[0].Number); err != nil {
			t.Fatal(err)
		}
		if got := w.mainFile(t, ".imagebot.yaml"); got != string(init.Config) {
			t.Errorf("merged config differs from init's")
		}

		// After the merge: five PRs, the dashboard lists the other twelve.
		res := w.dashRun(t, maxOpen(5))
		if len(res.Opened) != 5 || len(res.Waiting) != len(streams)-5 {
			t.Fatalf("opened %d, waiting %d; want 5 and %d", len(res.Opened), len(res.Waiting), len(streams)-5)
		}
		if !w.host.caps().issues {
			// No dashboard to tick (dashRun checked the run says so): a
			// rerun with nothing new still writes nothing, at a constant
			// few requests.
			w.noOpDashRun(t)
			return
		}
		dash := w.dashboardIssue(t)
		if dash.Title != "imagebot dashboard" || strings.Count(dash.Body, "- [ ] <!-- open:") != len(streams)-5 {
			t.Errorf("dashboard %q:\n%s", dash.Title, dash.Body)
		}
		if !strings.Contains(dash.Body, "## Waiting for a slot (at most 5 open)") {
			t.Errorf("no waiting section:\n%s", dash.Body)
		}
		// Patches first: the waiting order ends with the majors.
		if i, j := strings.Index(dash.Body, "open:imagebot/docker.io-library-node"), strings.Index(dash.Body, "open:imagebot/docker.io-library-redis-alpine"); i < j && i >= 0 && j >= 0 {
			t.Errorf("a major (node) waits before a minor (redis):\n%s", dash.Body)
		}

		// Ticking one opens it on the next run, beyond the limit.
		waiting := res.Waiting[len(res.Waiting)-1]
		w.tick(t, "open:"+waiting)
		res = w.dashRun(t, maxOpen(5))
		if len(res.Opened) != 1 || res.Opened[0] != waiting {
			t.Fatalf("after the tick opened %v, want %s", res.Opened, waiting)
		}
		if got := len(w.openPRs()); got != 6 {
			t.Errorf("%d open PRs, want 6", got)
		}

		res = w.noOpDashRun(t)

		// Closing a PR declines its version: listed with a box to propose it again.
		declined := res.Unchanged[0]
		s0 := streamOf(t, declined)
		if err := w.host.close(w.prs()[declined].Number); err != nil {
			t.Fatal(err)
		}
		w.dashRun(t, maxOpen(5))
		dash = w.dashboardIssue(t)
		again := "again:" + declined + "@" + s0.To
		if !strings.Contains(dash.Body, "## Declined") || !strings.Contains(dash.Body, "- [ ] <!-- "+again+" -->") {
			t.Fatalf("no declined entry %s:\n%s", again, dash.Body)
		}
		w.tick(t, again)
		res = w.dashRun(t, maxOpen(5))
		if len(res.Opened) != 1 || res.Opened[0] != declined {
			t.Fatalf("after propose again opened %v, want %s: %+v\n%s", res.Opened, declined, res, w.dashboardIssue(t).Body)
		}
		if dash = w.dashboardIssue(t); strings.Contains(dash.Body, again) {
			t.Errorf("the version proposed again is still declined:\n%s", dash.Body)
		}
	})
}

// TestDashboardAdversarial: the dashboard is people's input. A body edited
// into nonsense, a deleted marker, or someone else's issue with the marker
// copied (and a box ticked) never fails a run, duplicates the dashboard,
// or steers the bot.
func TestDashboardAdversarial(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		if !w.host.caps().issues {
			// No issues for a stranger to forge: the run keeps its limit
			// and says the dashboard is off (dashRun), run after run.
			for range 2 {
				if res := w.dashRun(t, maxOpen(2)); len(res.Failed) != 0 || len(w.openPRs()) != 2 {
					t.Errorf("failed %v, %d open PRs, want 2", res.Failed, len(w.openPRs()))
				}
			}
			return
		}
		// Before the bot's dashboard exists, a stranger files one ticking node.
		fake := "- [x] <!-- open:imagebot/docker.io-library-node --> node\n" + dashboard.Marker(dashboard.State{Since: w.clock.Now()})
		if _, err := w.host.openIssue("mallory", "imagebot dashboard", fake); err != nil {
			t.Fatal(err)
		}
		w.dashRun(t, maxOpen(2))
		if _, ok := w.openPRs()["imagebot/docker.io-library-node"]; ok {
			t.Error("a stranger's issue steered the bot")
		}
		dash := w.dashboardIssue(t)

		// A stranger copies the dashboard, ticks every box, and files it.
		forged := strings.ReplaceAll(dash.Body, "- [ ] ", "- [x] ")
		if _, err := w.host.openIssue("mallory", "imagebot dashboard", forged); err != nil {
			t.Fatal(err)
		}
		res := w.dashRun(t, maxOpen(2))
		if len(res.Opened) != 0 {
			t.Errorf("a stranger's ticks opened %v", res.Opened)
		}

		// The bot's own body edited into nonsense, marker and boxes gone.
		for _, body := range []string{
			"lol",
			"<!-- imagebot:dashboard {\"v\":1,\"since\":\"x\"} -->\n- [x] <!-- open:../../etc -->",
			"<!-- imagebot:dashboard {{{{ -->",
		} {
			b := body
			if err := w.host.editIssue(dash.Number, "renamed by a person", &b); err != nil {
				t.Fatal(err)
			}
			res = w.dashRun(t, maxOpen(2))
			if len(res.Failed) != 0 || len(res.Opened) != 0 {
				t.Errorf("body %q: failed %v, opened %v", body, res.Failed, res.Opened)
			}
		}
		// Marker deleted and title changed: still found (by its label), and
		// rewritten in place under the title people gave it. Bitbucket's
		// issues have no labels: there the bot opens a new dashboard
		// (docs/bitbucket.md).
		if !w.host.caps().issueLabels {
			return
		}
		got := w.dashboardIssue(t)
		if got.Number != dash.Number || got.Title != "renamed by a person" {
			t.Errorf("dashboard #%d %q, want #%d kept under its new title", got.Number, got.Title, dash.Number)
		}
		if _, ok := dashboard.Decode(got.Body); !ok {
			t.Errorf("the rewritten body has no readable marker:\n%s", got.Body)
		}
		if n := len(w.openPRs()); n != 2 {
			t.Errorf("%d open PRs, want 2", n)
		}
	})
}

// TestDashboardApproval: approval holds updates on the dashboard until
// ticked, whatever the slots; issues turned off cost the run nothing more
// than a note.
func TestDashboardApproval(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		major := func(o *gitops.RunOptions) {
			o.Approval = func(u plan.Update) bool { return u.Type == "major" }
		}
		res := w.dashRun(t, major)
		if len(res.AwaitingApproval) == 0 || len(res.Opened)+len(res.AwaitingApproval) != len(streams) {
			t.Fatalf("opened %d, awaiting approval %v", len(res.Opened), res.AwaitingApproval)
		}
		if !w.host.caps().issues {
			// No dashboard to approve on: the held updates stay held,
			// and the run says why (dashRun).
			if res2 := w.dashRun(t, major); len(res2.Opened) != 0 || !slices.Equal(res2.AwaitingApproval, res.AwaitingApproval) {
				t.Errorf("rerun: opened %v, awaiting approval %v; want none opened, %v held", res2.Opened, res2.AwaitingApproval, res.AwaitingApproval)
			}
			return
		}
		body := w.dashboardIssue(t).Body
		if !strings.Contains(body, "## Awaiting approval") {
			t.Fatalf("no approval section:\n%s", body)
		}
		w.tick(t, "open:"+res.AwaitingApproval[0])
		if res2 := w.dashRun(t, major); len(res2.Opened) != 1 || res2.Opened[0] != res.AwaitingApproval[0] {
			t.Errorf("the approved update: opened %v", res2.Opened)
		}

		off := newWorld(t, on, withIssuesOff())
		res = off.dashRun(t, maxOpen(1))
		if len(res.Opened) != 1 || len(res.Failed) != 0 || res.Dashboard != 0 {
			t.Errorf("issues off: opened %v, failed %v, dashboard %d", res.Opened, res.Failed, res.Dashboard)
		}
	})
}

// TestOnboardClosed: closing the onboarding PR without merging stops
// imagebot in the repository, and says so in one line.
func TestOnboardClosed(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		ob := func(o *gitops.RunOptions) {
			o.Onboarding = &gitops.Onboarding{Path: ".imagebot.yaml", Config: []byte("policies: []\n")}
		}
		w.run(t, ob)
		prs := w.host.changes()
		if len(prs) != 1 {
			t.Fatalf("%d PRs", len(prs))
		}
		if err := w.host.close(prs[0].Number); err != nil {
			t.Fatal(err)
		}
		before := w.counters()
		res := w.run(t, ob)
		if !strings.Contains(res.Stopped, "closed without merging") || w.counters() != before || len(w.host.changes()) != 1 {
			t.Errorf("after closing: stopped %q, PRs %d", res.Stopped, len(w.host.changes()))
		}
	})
}

// TestLongestWaitingFirst: as slots free up, of the updates of one kind
// the one that has waited longest opens first, by the time the dashboard
// recorded it joined the queue, not by its branch's name.
func TestLongestWaitingFirst(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		res := w.dashRun(t, maxOpen(1))
		if len(res.Opened) != 1 || len(res.Waiting) < 2 {
			t.Fatalf("opened %v, waiting %v: want 1 and at least 2", res.Opened, res.Waiting)
		}
		// Two waiting branches of one update type, the first by name first.
		typeOf := func(b string) string {
			us := res.Updates[b]
			if len(us) != 1 {
				return ""
			}
			return us[0].Type
		}
		var first, second string
		for i, a := range res.Waiting {
			for _, b := range res.Waiting[i+1:] {
				if first == "" && typeOf(a) != "" && typeOf(a) == typeOf(b) {
					first, second = a, b
				}
			}
		}
		if first == "" {
			t.Fatalf("no two waiting updates of one type among %v", res.Waiting)
		}
		if !w.host.caps().issues {
			// No dashboard, no record of the queue: a freed slot goes to
			// the first waiting in the run's own order, run after run.
			if err := w.host.close(w.prs()[res.Opened[0]].Number); err != nil {
				t.Fatal(err)
			}
			next := w.dashRun(t, maxOpen(1))
			if len(next.Opened) != 1 || next.Opened[0] != res.Waiting[0] {
				t.Fatalf("opened %v, want %s, the first waiting", next.Opened, res.Waiting[0])
			}
			return
		}
		// The record says the second has waited an hour longer.
		dash := w.dashboardIssue(t)
		st, ok := dashboard.Decode(dash.Body)
		if !ok || st.Queued[first].IsZero() || st.Queued[second].IsZero() {
			t.Fatalf("the dashboard records no queue for %s and %s: %+v", first, second, st.Queued)
		}
		st.Queued[second] = st.Queued[first].Add(-time.Hour)
		body := markerLine.ReplaceAllLiteralString(dash.Body, dashboard.Marker(st))
		if err := w.host.editIssue(dash.Number, "", &body); err != nil {
			t.Fatal(err)
		}
		// A slot frees up: the longest waiting takes it.
		if err := w.host.close(w.prs()[res.Opened[0]].Number); err != nil {
			t.Fatal(err)
		}
		res = w.dashRun(t, maxOpen(1))
		if len(res.Opened) != 1 || res.Opened[0] != second {
			t.Fatalf("opened %v, want %s, which waited longest (not %s)", res.Opened, second, first)
		}
	})
}

// noOpDashRun is a rerun with the dashboard (maxOpen 5) and nothing new:
// no write at all, and a constant few requests: the repository, a page of
// open PRs, who the bot is (where that is a request), a page of its issues
// (where the host has issues), and the closed PRs that say whether the
// waiting ones were declined: the number docs/limits.md and the README
// state.
func (w *world) noOpDashRun(t *testing.T) *gitops.Result {
	t.Helper()
	open := len(w.openPRs())
	before, reqs := w.counters(), w.host.requests()
	res := w.dashRun(t, maxOpen(5))
	if after := w.counters(); after != before || len(res.Opened) != 0 {
		t.Errorf("no-op rerun wrote: %+v -> %+v, opened %v", before, after, res.Opened)
	}
	noop := w.host.requests() - reqs
	t.Logf("no-op rerun with the dashboard: %d API requests", noop)
	want := w.host.noOpRequests(open) + 1
	if w.host.caps().issues {
		want++
	}
	if noop != want {
		t.Errorf("no-op rerun cost %d API requests, want %d", noop, want)
	}
	return res
}

var markerLine = regexp.MustCompile(`<!-- imagebot:dashboard \{[^\n]*\} -->`)

// TestDashboardProblemPlaces: a failed lookup of an image used in several
// files is one problem on the dashboard that names every place of it.
func TestDashboardProblemPlaces(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	s, p, reg := w.open(t)
	d, err := s.Dashboard(w.ctx, "imagebot dashboard")
	if err != nil {
		t.Fatal(err)
	}
	p.Problems = append(p.Problems, plan.Problem{File: "apps/a.yaml", Line: 3, Failed: true, Image: "docker.io/library/nginx",
		Message:   "look up docker.io/library/nginx (3 references): registry down",
		Locations: []scan.Location{{File: "apps/a.yaml", Line: 3}, {File: "apps/b.yaml", Line: 9}, {File: "c.yaml", Line: 1}}})
	w.finish(t, s, p, reg, func(o *gitops.RunOptions) { o.Dashboard, o.DashboardTitle = d, "imagebot dashboard" })
	body := w.dashboardIssue(t).Body
	if !strings.Contains(body, "look up docker.io/library/nginx (3 references): registry down (also at apps/b.yaml:9, c.yaml:1)") {
		t.Errorf("the dashboard does not name every place of the failed lookup:\n%s", body)
	}
}

// TestHostWords: on GitLab the bot writes "merge request" in its bodies
// and its dashboard, as GitLab calls them, and numbers them !1; the other
// hosts keep "pull request" and #1.
func TestHostWords(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on)
		w.dashRun(t, maxOpen(1))
		want, other := "pull request", "merge request"
		sigil := "[#"
		if w.host.kind() == gitops.GitLab {
			want, other, sigil = other, want, "[!" // GitLab reads #1 as an issue
		}
		var texts []string
		if w.host.caps().issues {
			dash := w.dashboardIssue(t).Body
			if !strings.Contains(dash, sigil) {
				t.Errorf("the dashboard does not number its open pull requests as %s1:\n%s", sigil, dash)
			}
			texts = append(texts, dash)
		}
		for _, c := range w.host.changes() {
			texts = append(texts, c.Body)
		}
		for _, s := range texts {
			if !strings.Contains(strings.ToLower(s), want) || strings.Contains(strings.ToLower(s), other) {
				t.Errorf("want %q and never %q in:\n%s", want, other, s)
			}
		}
	})
}
