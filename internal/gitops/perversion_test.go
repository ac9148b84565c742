package gitops_test

import (
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
)

const (
	cnpg       = "ghcr.io/cloudnative-pg/cloudnative-pg"
	cnpgBranch = "imagebot/ghcr.io-cloudnative-pg-cloudnative-pg"
	go2rtc     = "ghcr.io/alexxit/go2rtc"
	go2Branch  = "imagebot/ghcr.io-alexxit-go2rtc"
	go2Major   = "imagebot/ghcr.io-alexxit-go2rtc-major"
)

// splitRun is a run as cmd/bot's with the dashboard on and
// separateMajorMinor as given: planned with it, and run with it.
func (w *world) splitRun(t *testing.T, separate bool, edit ...func(*gitops.RunOptions)) *gitops.Result {
	t.Helper()
	s, err := gitops.Open(w.ctx, w.options(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	d, err := s.Dashboard(w.ctx, "imagebot dashboard")
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.NewClient(registry.WithMirrors(w.mirrors))
	res, err := scan.FS(w.ctx, s.FS(), w.cfg.Included)
	if err != nil {
		t.Fatal(err)
	}
	cfg := w.cfg
	p, err := plan.Build(w.ctx, res, plan.Options{Registry: reg, Policy: policies(cfg), SeparateMajorMinor: separate,
		Logger: slog.New(slog.NewTextHandler(w.logs, nil)),
		Group: func(img string) plan.Group {
			if g := cfg.GroupFor(img); g != nil {
				return plan.Group{Name: g.Name, Lockstep: g.Lockstep}
			}
			return plan.Group{}
		},
		Promoted: func(file string) (string, string) {
			if e := cfg.EnvironmentFor(file); e != nil {
				return e.Name, e.PromoteFrom
			}
			return "", ""
		}})
	if err != nil {
		t.Fatal(err)
	}
	err = rollout.Apply(w.ctx, p, res.Refs, rollout.Options{
		Config: cfg, History: s, Statuses: s, Tip: s.FS(), Registry: reg, Policy: func(img string) (*policy.Policy, error) { return policies(cfg)(img, "") },
		Now: w.clock.Now(), Helper: "ghcr.io/imagebot/imagebot:v0.1.0",
	})
	if err != nil {
		t.Fatal(err)
	}
	return w.finish(t, s, p, reg, append([]func(*gitops.RunOptions){func(o *gitops.RunOptions) {
		o.Dashboard, o.DashboardTitle, o.SeparateMajorMinor = d, "imagebot dashboard", separate
	}}, edit...)...)
}

// TestOnePullRequestPerVersion is issue 26's release archive: a repository
// that keeps one manifest per release got one PR per old version
// ("…-from-1.15.0"), all titled "Update … to 2.0.0". One PR per image
// stream and target version carries every place that moves to it, and its
// body lists the places by old version; closing it declines them all.
func TestOnePullRequestPerVersion(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		files := map[string][]byte{
			"releases/cnpg-1.15.0.yaml": []byte(deployment(cnpg + ":1.15.0")),
			"releases/cnpg-1.16.0.yaml": []byte(deployment(cnpg+":1.16.0", cnpg+":1.16.0")),
			"releases/cnpg-1.17.0.yaml": []byte(deployment(cnpg + ":1.17.0")),
			"releases/cnpg-1.18.0.yaml": []byte(deployment(cnpg + ":1.18.0")),
		}
		w := newWorld(t, on, withFiles(files))
		for _, tag := range []string{"1.15.0", "1.16.0", "1.17.0", "1.18.0", "2.0.0"} {
			w.pushTag(t, cnpg, tag)
		}
		for _, separate := range []bool{false, true} {
			// Without separateMajorMinor, and with it (where 1.18.0 has
			// no newer version in its major: every place moves to 2.0.0
			// on the major branch alone), one PR.
			if separate {
				w = newWorld(t, on, withFiles(files))
				for _, tag := range []string{"1.15.0", "1.16.0", "1.17.0", "1.18.0", "2.0.0"} {
					w.pushTag(t, cnpg, tag)
				}
			}
			res := w.splitRun(t, separate)
			// With separate, 1.15.0 ... 1.17.0 move to 1.18.0 in a second PR.
			want := []string{cnpgBranch}
			if separate {
				want = []string{cnpgBranch, cnpgBranch + "-major"}
			}
			if !slices.Equal(res.Opened, want) {
				t.Fatalf("separate %v: opened %v, want %v", separate, res.Opened, want)
			}
			major := want[len(want)-1]
			pr := w.openPRs()[major]
			if pr.Title != "Update ghcr.io/cloudnative-pg/cloudnative-pg to 2.0.0" {
				t.Errorf("title %q", pr.Title)
			}
			contains(t, "PR body", pr.Body,
				"to `2.0.0` in 5 places, from 4 versions:",
				"- from `1.15.0` (major): 1 place\n- from `1.16.0` (major): 2 places\n- from `1.17.0` (major): 1 place\n- from `1.18.0` (major): 1 place\n",
				"| `releases/cnpg-1.15.0.yaml:10` | `1.15.0` | `2.0.0` | major |",
				"| `releases/cnpg-1.16.0.yaml:12` | `1.16.0` | `2.0.0` | major |",
				"| `releases/cnpg-1.18.0.yaml:10` | `1.18.0` | `2.0.0` | major |")
			if got := changedFiles(t, w.mainTip(t), w.commit(t, major)); len(got) != len(files) {
				t.Errorf("the major PR changes %v, want every release file", got)
			}
			if separate {
				minor := w.openPRs()[cnpgBranch]
				if minor.Title != "Update ghcr.io/cloudnative-pg/cloudnative-pg to 1.18.0" {
					t.Errorf("minor title %q", minor.Title)
				}
				contains(t, "minor PR body", minor.Body, "to `1.18.0` in 4 places, from 3 versions:")
			}

			// A rerun changes nothing.
			before := w.counters()
			res = w.splitRun(t, separate)
			if after := w.counters(); after != before || !slices.Equal(res.Unchanged, want) {
				t.Errorf("rerun wrote %+v -> %+v: %+v", before, after, res)
			}

			// Closing it declines every place's move, not one of them.
			if err := w.host.close(pr.Number); err != nil {
				t.Fatal(err)
			}
			res = w.splitRun(t, separate)
			if len(res.Opened) != 0 || !slices.Contains(res.Declined, major) {
				t.Errorf("after closing: opened %v, declined %v", res.Opened, res.Declined)
			}
		}
	})
}

// TestDeclinedMajorKeepsMinors is issue 26's go2rtc: closing "Update
// go2rtc to 2.0.0" left the repository with nothing, though 1.10.0 of its
// own major came out. With separateMajorMinor (the default), the newest
// within the current major and the newest major are two PRs; closing the
// major declines that major line (2.1.0 is not proposed either) until
// "propose again" is ticked; closing a minor declines that version only;
// a newer major line is proposed anew.
func TestDeclinedMajorKeepsMinors(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(map[string][]byte{"apps/go2rtc.yaml": []byte(deployment(go2rtc + ":1.8.0"))}))
		for _, tag := range []string{"1.8.0", "1.9.0", "2.0.0"} {
			w.pushTag(t, go2rtc, tag)
		}
		res := w.splitRun(t, true)
		if !slices.Equal(res.Opened, []string{go2Branch, go2Major}) {
			t.Fatalf("opened %v, want the minor and the major PR", res.Opened)
		}
		open := w.openPRs()
		if open[go2Branch].Title != "Update ghcr.io/alexxit/go2rtc to 1.9.0" || open[go2Major].Title != "Update ghcr.io/alexxit/go2rtc to 2.0.0" {
			t.Errorf("titles %q, %q", open[go2Branch].Title, open[go2Major].Title)
		}
		contains(t, "major PR body", open[go2Major].Body, "not to propose this major version again, nor its later releases")
		contains(t, "minor PR body", open[go2Branch].Body, "not to propose this version again.")

		// The major is declined; its line's next release is not proposed,
		// the minors keep coming on their own PR.
		if err := w.host.close(open[go2Major].Number); err != nil {
			t.Fatal(err)
		}
		w.pushTag(t, go2rtc, "1.10.0")
		w.pushTag(t, go2rtc, "2.1.0")
		res = w.splitRun(t, true)
		if len(res.Opened) != 0 || !slices.Equal(res.Updated, []string{go2Branch}) || !slices.Equal(res.Declined, []string{go2Major}) {
			t.Errorf("after declining 2.0.0: opened %v, updated %v, declined %v", res.Opened, res.Updated, res.Declined)
		}
		if pr := w.openPRs()[go2Branch]; pr.Title != "Update ghcr.io/alexxit/go2rtc to 1.10.0" || pr.Number != open[go2Branch].Number {
			t.Errorf("minor PR #%d %q, want #%d moved to 1.10.0", pr.Number, pr.Title, open[go2Branch].Number)
		}
		if _, ok := w.openPRs()[go2Major]; ok {
			t.Errorf("2.1.0 proposed although the 2.x line was declined")
		}
		// Without issues there is no dashboard to list the declined line
		// or to propose it again on: it stays declined.
		issues := w.host.caps().issues
		if issues {
			d := w.dashboardIssue(t)
			sigil := "#"
			if w.host.kind() == gitops.GitLab {
				sigil = "!" // GitLab reads #2 as an issue
			}
			contains(t, "dashboard", d.Body, "ghcr.io/alexxit/go2rtc 1.8.0 → 2.1.0 ("+sigil+itoa(open[go2Major].Number)+" closed)")

			// Ticked "propose again": the major line is proposed once more.
			w.tick(t, "again:"+go2Major+"@2.1.0")
			res = w.splitRun(t, true)
			if !slices.Equal(res.Opened, []string{go2Major}) {
				t.Fatalf("after the tick: opened %v", res.Opened)
			}
			if pr := w.openPRs()[go2Major]; pr.Title != "Update ghcr.io/alexxit/go2rtc to 2.1.0" {
				t.Errorf("major PR %q", pr.Title)
			}
		}

		// Closing the minor declines 1.10.0 only: 1.11.0 is proposed.
		if err := w.host.close(w.openPRs()[go2Branch].Number); err != nil {
			t.Fatal(err)
		}
		res = w.splitRun(t, true)
		if len(res.Opened) != 0 || !slices.Contains(res.Declined, go2Branch) {
			t.Errorf("after declining 1.10.0: opened %v, declined %v", res.Opened, res.Declined)
		}
		w.pushTag(t, go2rtc, "1.11.0")
		w.pushTag(t, go2rtc, "3.0.0")
		res = w.splitRun(t, true)
		// 3.0.0 moves the open major PR; where 2.x stayed declined, the
		// new major line is proposed anew.
		wantOpened, wantUpdated := []string{go2Branch}, []string{go2Major}
		if !issues {
			wantOpened, wantUpdated = []string{go2Branch, go2Major}, nil
		}
		if !slices.Equal(res.Opened, wantOpened) || !slices.Equal(res.Updated, wantUpdated) {
			t.Errorf("after 1.11.0 and 3.0.0: opened %v, updated %v; want %v, %v", res.Opened, res.Updated, wantOpened, wantUpdated)
		}
		open = w.openPRs()
		if open[go2Branch].Title != "Update ghcr.io/alexxit/go2rtc to 1.11.0" || open[go2Major].Title != "Update ghcr.io/alexxit/go2rtc to 3.0.0" {
			t.Errorf("titles %q, %q", open[go2Branch].Title, open[go2Major].Title)
		}

		// separateMajorMinor: false keeps one PR, the newest.
		w2 := newWorld(t, on, withFiles(map[string][]byte{"apps/go2rtc.yaml": []byte(deployment(go2rtc + ":1.8.0"))}))
		for _, tag := range []string{"1.8.0", "1.9.0", "2.0.0"} {
			w2.pushTag(t, go2rtc, tag)
		}
		if res := w2.splitRun(t, false); !slices.Equal(res.Opened, []string{go2Branch}) || w2.openPRs()[go2Branch].Title != "Update ghcr.io/alexxit/go2rtc to 2.0.0" {
			t.Errorf("separateMajorMinor false: opened %v", res.Opened)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLockstepMajorMinor: a lockstep group follows separateMajorMinor as
// one image does: the best tag within the current major that every member
// has, and the best major every member has, are two PRs of the group;
// closing the major's declines that major line for the whole group.
func TestLockstepMajorMinor(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(kollaFiles))
		w.configure(t, openstackConfig)
		// The seed has 2024.1.1 on every member (nova 2024.2.0 too).
		for _, img := range []string{nova, glance, keystone} {
			w.pushTag(t, img, "2025.1.0")
		}
		res := w.splitRun(t, true)
		major := groupBranch + "-major"
		if !slices.Equal(res.Opened, []string{groupBranch, major}) {
			t.Fatalf("opened %v", res.Opened)
		}
		open := w.openPRs()
		if open[groupBranch].Title != "Update openstack group to 2024.1.1" || open[major].Title != "Update openstack group to 2025.1.0" {
			t.Errorf("titles %q, %q", open[groupBranch].Title, open[major].Title)
		}
		if err := w.host.close(open[major].Number); err != nil {
			t.Fatal(err)
		}
		for _, img := range []string{nova, glance, keystone} {
			w.pushTag(t, img, "2025.1.1")
			w.pushTag(t, img, "2024.2.0")
		}
		res = w.splitRun(t, true)
		if len(res.Opened) != 0 || !slices.Equal(res.Declined, []string{major}) || !slices.Equal(res.Updated, []string{groupBranch}) {
			t.Errorf("after declining 2025.1.0: opened %v, declined %v, updated %v", res.Opened, res.Declined, res.Updated)
		}
		if pr := w.openPRs()[groupBranch]; pr.Title != "Update openstack group to 2024.2.0" {
			t.Errorf("the group's minor PR: %q", pr.Title)
		}
	})
}

// TestMajorMinorMergeRounds: the two PRs of a stream edit the same lines.
// Merging the one within the major moves the major's PR onto the new tip
// (same PR, now from the merged version); merging that one leaves main on
// the newest version and nothing open.
func TestMajorMinorMergeRounds(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(map[string][]byte{"apps/go2rtc.yaml": []byte(deployment(go2rtc + ":1.8.0"))}))
		for _, tag := range []string{"1.8.0", "1.9.0", "2.0.0"} {
			w.pushTag(t, go2rtc, tag)
		}
		w.splitRun(t, true)
		open := w.openPRs()
		if err := w.host.merge(open[go2Branch].Number); err != nil {
			t.Fatal(err)
		}
		res := w.splitRun(t, true)
		if len(res.Opened)+len(res.Closed) != 0 || !slices.Equal(res.Updated, []string{go2Major}) {
			t.Errorf("after merging 1.9.0: %+v", res)
		}
		pr := w.openPRs()[go2Major]
		if pr.Number != open[go2Major].Number || !strings.Contains(pr.Body, "from `1.9.0` to `2.0.0` (major)") {
			t.Errorf("major PR #%d (was #%d):\n%s", pr.Number, open[go2Major].Number, pr.Body)
		}
		if _, err := w.tryGit("merge-tree", "--write-tree", "main", go2Major); err != nil {
			t.Errorf("the major PR conflicts with main: %v", err)
		}
		if err := w.host.merge(pr.Number); err != nil {
			t.Fatal(err)
		}
		res = w.splitRun(t, true)
		if len(res.Opened)+len(res.Updated)+len(res.Closed) != 0 || len(w.openPRs()) != 0 {
			t.Errorf("after merging 2.0.0: %+v, open %v", res, w.openPRs())
		}
		if got := w.mainFile(t, "apps/go2rtc.yaml"); !strings.Contains(got, go2rtc+":2.0.0") {
			t.Errorf("main:\n%s", got)
		}
	})
}

// TestEnvironmentsMajorMinor: environments follow separateMajorMinor. The
// environment promoted from gets the two PRs of a stream; once its major
// is declined and the version within the major has soaked there, the next
// environment is promoted to exactly that version, and the declined major
// reaches neither.
func TestEnvironmentsMajorMinor(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(envFiles))
		w.configure(t, `environments:
  - name: staging
    paths: ["envs/staging/**"]
  - name: production
    paths: ["envs/production/**"]
    promoteFrom: staging
    soak: 24h
`)
		apiBranch := "imagebot/ghcr.io-acme-api"
		res := w.splitRun(t, true)
		if !slices.Equal(res.Opened, []string{apiBranch, apiBranch + "-major"}) {
			t.Fatalf("opened %v, want staging's two PRs", res.Opened)
		}
		open := w.openPRs()
		if !strings.Contains(open[apiBranch].Body, "`envs/staging/api.yaml:10` | `v1.7.0` | `v1.9.0`") ||
			!strings.Contains(open[apiBranch+"-major"].Body, "`envs/staging/api.yaml:10` | `v1.7.0` | `v2.0.0`") ||
			strings.Contains(open[apiBranch].Body+open[apiBranch+"-major"].Body, "envs/production") {
			t.Errorf("bodies:\n%s\n%s", open[apiBranch].Body, open[apiBranch+"-major"].Body)
		}
		if err := w.host.close(open[apiBranch+"-major"].Number); err != nil {
			t.Fatal(err)
		}
		// Staging took v1.9.0 by hand 30 hours ago.
		w.commitAt(t, 30*time.Hour, "staging: api v1.9.0", map[string]string{stagingAPI: deployment(api + ":v1.9.0")})
		res = w.splitRun(t, true)
		if !slices.Equal(res.Opened, []string{promoBranch}) || !slices.Contains(res.Declined, apiBranch+"-major") {
			t.Errorf("after staging's v1.9.0: opened %v, declined %v", res.Opened, res.Declined)
		}
		if pr := w.openPRs()[promoBranch]; pr.Title != "Promote ghcr.io/acme/api v1.9.0 to production" {
			t.Errorf("promotion %q", pr.Title)
		}
	})
}
