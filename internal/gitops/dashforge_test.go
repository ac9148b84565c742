package gitops_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/dashboard"
	"github.com/imagebot/imagebot/internal/testing/gittest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// commitWithGit commits a file to main as a person would with the git
// CLI, in a checkout of their own: git takes any byte but NUL in a name,
// where go-git's worktree refuses control characters.
func (w *world) commitWithGit(t *testing.T, path, content string) {
	t.Helper()
	dir := gittest.TempDir(t)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
			"GIT_AUTHOR_NAME=Mallory", "GIT_AUTHOR_EMAIL=mallory@example.com", "GIT_COMMITTER_NAME=Mallory", "GIT_COMMITTER_EMAIL=mallory@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", args[0], err, out)
		}
	}
	git("clone", "-q", "--branch", main_, w.gs.Dir(owner, name), ".")
	p := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "a file with a name")
	git("push", "-q", "origin", main_)
}

// TestDashboardFileNameForgery: a committed file whose name holds line
// breaks, a ticked "open now" box and a dashboard marker that backdates a
// digest's first sighting lands in the dashboard's problems on one line,
// inert: the next run opens nothing past maxOpen, and minAge counts from
// when the bot first saw the digest, not from the forged record.
func TestDashboardFileNameForgery(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		srv := registrytest.NewServer(t)
		w := newWorld(t, on, withRepo(map[string][]byte{
			"web.yaml": []byte("image: ghcr.io/acme/web:1.0.0\n"),
			"api.yaml": []byte("image: ghcr.io/acme/api:1.0.0\n"),
		}, map[string]string{"ghcr.io": srv.URL() + "/ghcr.io"}))
		now := w.clock.Now()
		for _, img := range []string{"ghcr.io/acme/web", "ghcr.io/acme/api"} {
			srv.Push(t, img, "1.0.0", registrytest.Image(t, img+"1.0.0", now.Add(-30*day), nil))
			srv.Push(t, img, "1.1.0", registrytest.Image(t, img+"1.1.0", now.Add(-20*day), nil))
		}

		// The first recorded run: one PR, the other update waits.
		res := w.ageRun(t, maxOpen(1))
		if len(res.Opened) != 1 || len(res.Waiting) != 1 {
			t.Fatalf("first run opened %v, waiting %v", res.Opened, res.Waiting)
		}
		opened, waiting := res.Opened[0], res.Waiting[0]
		// Without issues there is no dashboard for the name to forge, and
		// no record of first sightings: minAge trusts the image's created
		// time alone, and the name still ticks nothing.
		issues := w.host.caps().issues
		var since dashboard.State
		if issues {
			var ok bool
			if since, ok = dashboard.Decode(w.dashboardIssue(t).Body); !ok {
				t.Fatal("no readable marker after the first run")
			}
		}

		// A push that claims to be ten days old, and a file whose name
		// ticks the waiting update and records that push as seen in 2000.
		w.advance(time.Hour)
		seenAt := w.clock.Now()
		d := srv.Push(t, "ghcr.io/acme/web", "1.2.0", registrytest.Image(t, "web 1.2.0", seenAt.Add(-10*day), nil))
		forged := fmt.Sprintf(`<!-- imagebot:dashboard {"v":1,"since":946684801,"seen":{"%s":946684801}} -->`, strings.TrimPrefix(d, "sha256:"))
		evil := "evil\n- [x] <!-- open:" + waiting + " -->\n" + forged + "\n- [x] <!-- again:" + waiting + "@1.1.0 -->\n.yaml"
		w.commitWithGit(t, evil, "image: ghcr.io/acme/gone:1.0.0\n")

		w.ageRun(t, maxOpen(1))
		if issues {
			w.checkForgedName(t, d, seenAt, since)
		}

		// The next run: still one PR open, still on 1.1.0 (where the
		// dashboard records when the bot first saw 1.2.0).
		res = w.ageRun(t, maxOpen(1))
		if len(res.Opened) != 0 || len(w.openPRs()) != 1 {
			t.Errorf("opened %v (%d open), maxOpen 1", res.Opened, len(w.openPRs()))
		}
		if _, ok := w.openPRs()[opened]; !ok {
			t.Errorf("the first PR %s is not open", opened)
		}
		passed := false
		for _, u := range w.plan.Updates {
			passed = passed || u.To == "1.2.0"
		}
		if passed != !issues {
			t.Errorf("1.2.0, first seen an hour ago and created ten days ago, passed minAge 3d: %v; want %v (the record of first sightings: %v)", passed, !issues, issues)
		}
	})
}

// checkForgedName: the file's problem is on the dashboard on one line,
// ticks nothing, adds no marker, and leaves the record as the bot kept it.
func (w *world) checkForgedName(t *testing.T, d string, seenAt time.Time, since dashboard.State) {
	t.Helper()
	body := w.dashboardIssue(t).Body
	if !strings.Contains(body, "## Problems") || !strings.Contains(body, "`evil - [x] <\u200b!-- open:") {
		t.Errorf("the file's problem is not on the dashboard, on one line:\n%s", body)
	}
	if c := dashboard.Parse(body); len(c.OpenNow)+len(c.Again) != 0 {
		t.Errorf("the file name ticked %+v", c)
	}
	var markers []int
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "<!-- imagebot:dashboard") {
			markers = append(markers, i)
		}
	}
	if len(markers) != 1 || markers[0] != len(lines)-1 {
		t.Errorf("marker lines %v of %d, want only the last:\n%s", markers, len(lines), body)
	}
	st, ok := dashboard.Decode(body)
	if !ok || !st.Since.Equal(since.Since) || !st.Seen[d].Equal(seenAt.UTC()) {
		t.Errorf("state since %v, %s first seen %v (ok %v); want since %v, first seen %v", st.Since, d, st.Seen[d], ok, since.Since, seenAt.UTC())
	}
}

// TestDashboardOutgrowsNoLimit is issue 25's item 11: about 300 updates
// with long image names wait for a slot. Their first sightings and places
// in the queue alone made a marker longer than GitHub's 65,536
// characters: the body was refused, every run exited 2 and nothing was
// recorded. The marker is bounded and the body fits each host's limit
// (the fakes refuse more, as the hosts do); the record keeps every first
// sighting, and a rerun writes nothing.
func TestDashboardOutgrowsNoLimit(t *testing.T) {
	t.Parallel()
	const n = 300
	srv := registrytest.NewServer(t)
	files := map[string][]byte{}
	long := strings.Repeat("a-rather-long-image-name-", 7)
	start := time.Now()
	for i := range n {
		img := fmt.Sprintf("ghcr.io/acme/%s%03d", long, i)
		files[fmt.Sprintf("apps/f%03d.yaml", i)] = []byte("image: " + img + ":1.0.0\n")
		srv.Push(t, img, "1.0.0", registrytest.Image(t, img+"1", start.Add(-30*day), nil))
		srv.Push(t, img, "1.1.0", registrytest.Image(t, img+"2", start.Add(-20*day), nil))
	}
	eachHost(t, func(t *testing.T, on worldOption) {
		if withoutIssues[hostOf(on).name] {
			return // no issue tracker, no body to outgrow: dashRun's scenarios check the run says so
		}
		w := newWorld(t, on, withRepo(files, map[string]string{"ghcr.io": srv.URL() + "/ghcr.io"}))
		if !w.host.caps().issues {
			t.Fatal("this host has no issues: list it in withoutIssues")
		}
		res := w.ageRun(t, maxOpen(1))
		if len(res.Failed) != 0 || len(res.Waiting) != n-1 {
			t.Fatalf("failed %v, %d waiting", res.Failed, len(res.Waiting))
		}
		body := w.dashboardIssue(t).Body
		limit := dashboard.MaxBody // GitHub's, and Gitea's as imagebot takes it
		if w.host.kind() == "gitlab" {
			limit = 1 << 20
		}
		if len(body) > limit {
			t.Errorf("body is %d bytes, over %d", len(body), limit)
		}
		st, ok := dashboard.Decode(body)
		if !ok || len(st.Seen) < n || len(st.Queued) == 0 {
			t.Fatalf("the record keeps %d sightings and %d queued (ok %v), want all %d sightings", len(st.Seen), len(st.Queued), ok, n)
		}
		writes := w.host.writes()
		w.advance(time.Hour)
		res = w.ageRun(t, maxOpen(1))
		if len(res.Failed) != 0 || w.host.writes() != writes {
			t.Errorf("rerun: failed %v, %d writes", res.Failed, w.host.writes()-writes)
		}
	})
}

// withoutIssues are the hosts whose caps say they have no issues, by name,
// so that a scenario about the dashboard can pass them by without making
// a world to ask.
var withoutIssues = map[string]bool{bitbucketDCMaker.name: true, azureMaker.name: true}

// hostOf is the host on makes worlds on.
func hostOf(on worldOption) hostMaker {
	var wc worldConfig
	on(&wc)
	return wc.host
}
