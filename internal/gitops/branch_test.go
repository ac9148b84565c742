package gitops

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
)

func TestStream(t *testing.T) {
	for _, tc := range []struct{ tag, want string }{
		{"1.26.1", ""},
		{"16.2", ""},
		{"15.6.47.11.2", ""},
		{"v1.9.0", ""}, // a leading v is part of the version
		{"v2", ""},     // even alone
		{"7.2.5-alpine", "alpine"},
		{"1.26.1-alpine3.19", "alpine"},
		{"2.6.3-rev1-b1.2", "rev-b"}, // SUSE
		{"build-100", "build"},
		{"v1.9.0-rc.0", "rc"},
		{"20.11.1-bookworm-slim", "bookworm-slim"},
		{"1.0_Debian", "debian"},
		{"latest", "latest"},
		{"vnext", "vnext"}, // not a v before a number
		// A commit id changes with every build: the stream is the rest.
		{"main-20240612-a0b1c2d", "main"},
		{"main-20240601-3f9a2c1", "main"},
		{"v2.4.0-12-g3a4b5c6", ""},
		{"sha-3f9a2c1", "sha"},
		{"1.2-deadbeef", "deadbeef"}, // letters only: a word, not a commit
		{"", ""},
	} {
		if got := stream(tc.tag); got != tc.want {
			t.Errorf("stream(%q) = %q, want %q", tc.tag, got, tc.want)
		}
	}
}

func TestBranchName(t *testing.T) {
	for _, tc := range []struct{ prefix, image, tag, want string }{
		{"imagebot/", "docker.io/library/nginx", "1.26.1", "imagebot/docker.io-library-nginx"},
		{"imagebot/", "docker.io/library/nginx", "1.27.0", "imagebot/docker.io-library-nginx"}, // the version never names the branch
		{"imagebot/", "docker.io/library/nginx", "1.26.1-alpine", "imagebot/docker.io-library-nginx-alpine"},
		{"imagebot/", "docker.io/bitnami/kubectl", "1.30.1", "imagebot/docker.io-bitnami-kubectl"},
		{"imagebot/", "ghcr.io/acme/api", "v2.0.0", "imagebot/ghcr.io-acme-api"},
		{"imagebot/", "ghcr.io/acme/worker", "build-11", "imagebot/ghcr.io-acme-worker-build"},
		{"imagebot/", "registry.suse.com/suse/sles15", "2.6.3-rev1-b1.2", "imagebot/registry.suse.com-suse-sles15-rev-b"},
		{"imagebot/", "localhost:5000/team/app", "1.0", "imagebot/localhost-5000-team-app"},
		{"imagebot/", "ghcr.io/Acme/App_Server", "1.0", "imagebot/ghcr.io-acme-app_server"},
		{"deps/images/", "docker.io/library/redis", "7.4.1", "deps/images/docker.io-library-redis"},
	} {
		got := branchName(tc.prefix, tc.image, tc.tag)
		if got != tc.want {
			t.Errorf("branchName(%q, %q, %q) = %q, want %q", tc.prefix, tc.image, tc.tag, got, tc.want)
		}
		if err := plumbing.NewBranchReferenceName(got).Validate(); err != nil {
			t.Errorf("%s is not a valid branch name: %v", got, err)
		}
	}
}

func TestSanitize(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"docker.io/library/nginx", "docker.io-library-nginx"},
		{"UPPER_case", "upper_case"},
		{"a b:c@d~e^f", "a-b-c-d-e-f"},
		{"-edge-", "edge"},
		{".dot.", "dot"},
		{"a..b", "a.b"},
		{"a...b", "a.b"},
		{"x.lock", "x-lock"},
		{"1.0", "1.0"},
	} {
		if got := sanitize(tc.in); got != tc.want {
			t.Errorf("sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Tags may hold runs of dots ("1...2") and end in ".lock": the old tag
// goes into the branch name when two updates share a stream, and git
// refuses such names.
func TestBranchNamesAreValidRefs(t *testing.T) {
	for _, from := range []string{"1...2", "1....2", "v1.lock", "latest", "1.36.0", "_x_", "a-.b"} {
		p := &plan.Plan{Updates: []plan.Update{
			{Image: "docker.io/library/busybox", From: from, To: "1.37.0"},
			{Image: "docker.io/library/busybox", From: "1.36.0", To: "1.37.0"},
		}}
		for _, g := range groups(p, "imagebot/") {
			if err := plumbing.NewBranchReferenceName(g.Branch).Validate(); err != nil {
				t.Errorf("from %q: branch %q: %v", from, g.Branch, err)
			}
		}
	}
}

func TestShortName(t *testing.T) {
	for _, tc := range []struct{ image, want string }{
		{"docker.io/library/nginx", "nginx"},
		{"docker.io/bitnami/kubectl", "bitnami/kubectl"},
		{"ghcr.io/acme/api", "ghcr.io/acme/api"},
		{"quay.io/prometheus/node-exporter", "quay.io/prometheus/node-exporter"},
		{"registry.example.com/library/x", "registry.example.com/library/x"},
	} {
		if got := shortName(tc.image); got != tc.want {
			t.Errorf("shortName(%q) = %q, want %q", tc.image, got, tc.want)
		}
	}
}

func TestGroups(t *testing.T) {
	type row struct {
		Branch, Image string
		From          []string
	}
	for _, tc := range []struct {
		name    string
		updates []plan.Update
		want    []row
	}{{
		name: "one branch per update, sorted by branch",
		updates: []plan.Update{
			{Image: "ghcr.io/acme/api", From: "v1.7.0", To: "v2.0.0"},
			{Image: "docker.io/library/nginx", From: "1.25.3-alpine", To: "1.26.1-alpine"},
			{Image: "docker.io/library/nginx", From: "1.25.3", To: "1.26.1"},
		},
		want: []row{
			{"imagebot/docker.io-library-nginx", "docker.io/library/nginx", []string{"1.25.3"}},
			{"imagebot/docker.io-library-nginx-alpine", "docker.io/library/nginx", []string{"1.25.3-alpine"}},
			{"imagebot/ghcr.io-acme-api", "ghcr.io/acme/api", []string{"v1.7.0"}},
		},
	}, {
		name: "one branch per stream and target, whatever the old tags",
		updates: []plan.Update{
			{Image: "docker.io/library/busybox", From: "latest", To: "1.37.0", Type: "pin"},
			{Image: "docker.io/library/busybox", From: "1.36.0", To: "1.37.0", Type: "minor"},
			{Image: "docker.io/library/redis", From: "7.2.4", To: "7.4.1"},
		},
		want: []row{
			{"imagebot/docker.io-library-busybox", "docker.io/library/busybox", []string{"1.36.0", "latest"}},
			{"imagebot/docker.io-library-redis", "docker.io/library/redis", []string{"7.2.4"}},
		},
	}, {
		name: "two targets of one stream are told apart by their first old tag",
		updates: []plan.Update{
			{Image: "docker.io/library/redis", From: "7.0.1", To: "7.0.15", Type: "patch"},
			{Image: "docker.io/library/redis", From: "7.2.4", To: "7.4.1", Type: "minor"},
			{Image: "docker.io/library/redis", From: "7.2.5", To: "7.4.1", Type: "minor"},
		},
		want: []row{
			{"imagebot/docker.io-library-redis-from-7.0.1", "docker.io/library/redis", []string{"7.0.1"}},
			{"imagebot/docker.io-library-redis-from-7.2.4", "docker.io/library/redis", []string{"7.2.4", "7.2.5"}},
		},
	}, {
		name:    "empty plan",
		updates: nil,
		want:    nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var got []row
			for _, g := range groups(&plan.Plan{Updates: tc.updates}, "imagebot/") {
				r := row{Branch: g.Branch, Image: g.Image}
				for _, u := range g.Updates {
					r.From = append(r.From, u.From)
				}
				got = append(got, r)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("groups (-want +got):\n%s", d)
			}
		})
	}
}

// A readable branch name two streams share is kept by the stream whose
// open PR holds it; the other gets a hash, also when it alone is in the
// plan, so that its change is never pushed onto the other image's branch.
// A name nobody shares stays readable, as before.
func TestCollidingBranchNames(t *testing.T) {
	ab := plan.Update{Image: "ghcr.io/acme/a-b", From: "1.0.0", To: "1.1.0"}
	ab2 := plan.Update{Image: "ghcr.io/acme-a/b", From: "1.0.0", To: "1.1.0"}
	plain := "imagebot/ghcr.io-acme-a-b"
	branches := func(o openBranches, us ...plan.Update) map[string]string {
		out := map[string]string{}
		for _, g := range groupsKeeping(&plan.Plan{Updates: us}, "imagebot/", o) {
			out[g.Image] = g.Branch
		}
		return out
	}
	if got := branches(openBranches{}, ab); got[ab.Image] != plain {
		t.Errorf("alone: %v, want %s", got, plain)
	}
	both := branches(openBranches{}, ab, ab2)
	if both[ab.Image] == both[ab2.Image] || !strings.HasPrefix(both[ab.Image], plain+"-") || !strings.HasPrefix(both[ab2.Image], plain+"-") {
		t.Errorf("both, no PR: %v", both)
	}
	held := openBranches{holder: map[string]string{plain: streamKey(ab.Image, "1.1.0")}}
	if got := branches(held, ab, ab2); got[ab.Image] != plain || got[ab2.Image] != both[ab2.Image] {
		t.Errorf("both, %s holds it: %v", ab.Image, got)
	}
	if got := branches(held, ab2); got[ab2.Image] != both[ab2.Image] {
		t.Errorf("the other alone, %s holds it: %v", ab.Image, got)
	}
}

// The PRs of releases that opened one PR per old version
// ("…-from-1.15.0") are adopted: the stream's one group keeps one of them
// (the stream's own branch when one holds it, else the first), and the
// others, carried by it now, are closed saying so.
func TestGroupsAdoptPerFromBranches(t *testing.T) {
	img := "ghcr.io/cloudnative-pg/cloudnative-pg"
	ups := []plan.Update{
		{Image: img, From: "1.15.0", To: "2.0.0", Type: "major"},
		{Image: img, From: "1.16.0", To: "2.0.0", Type: "major"},
	}
	plain := "imagebot/ghcr.io-cloudnative-pg-cloudnative-pg"
	for _, tc := range []struct {
		name string
		open []string // branches of open PRs, moving 1.15.0 and 1.16.0
		want string
	}{
		{"no PR", nil, plain},
		{"one PR per old version", []string{plain + "-from-1.16.0", plain + "-from-1.15.0"}, plain + "-from-1.15.0"},
		{"the stream's own branch", []string{plain + "-from-1.15.0", plain}, plain},
	} {
		o := openBranches{carried: map[string][]string{}, holder: map[string]string{}}
		for i, b := range tc.open {
			o.carry(img, ups[i].From, false, b)
		}
		gs := groupsKeeping(&plan.Plan{Updates: ups}, "imagebot/", o)
		if len(gs) != 1 || gs[0].Branch != tc.want || len(gs[0].Updates) != 2 {
			t.Errorf("%s: %d groups, first on %s, want one on %s", tc.name, len(gs), gs[0].Branch, tc.want)
			continue
		}
		r := &runner{carriers: carriers(gs), res: &Result{}}
		for _, b := range tc.open {
			m := marker{Branch: b, Moves: []markedMove{{Image: img, From: "1.15.0", To: "1.99.0"}}}
			if b == plain+"-from-1.16.0" {
				m.Moves[0].From = "1.16.0"
			}
			want := tc.want
			if b == want {
				want = "" // the group's own PR is kept, not closed
			}
			if got := r.carrier(m, b); got != want {
				t.Errorf("%s: %s is carried by %q, want %q", tc.name, b, got, want)
			}
		}
	}
}

// The places of a stream's PR are listed by old version as people read
// versions: 1.9.0 before 1.10.0.
func TestGroupsListOldVersionsInOrder(t *testing.T) {
	var ups []plan.Update
	for _, from := range []string{"1.10.0", "1.9.0", "1.15.0", "latest", "1.2.0"} {
		ups = append(ups, plan.Update{Image: "ghcr.io/acme/x", From: from, To: "2.0.0"})
	}
	gs := groups(&plan.Plan{Updates: ups}, "imagebot/")
	var got []string
	for _, u := range gs[0].Updates {
		got = append(got, u.From)
	}
	if want := []string{"1.2.0", "1.9.0", "1.10.0", "1.15.0", "latest"}; len(gs) != 1 || !slices.Equal(got, want) {
		t.Errorf("%d groups, old versions %v, want one with %v", len(gs), got, want)
	}
}

// With separateMajorMinor, a stream's major update goes to the branch
// ending in -major and the newest within the major to the stream's own;
// an open PR of an earlier release that proposes the major on the
// stream's own branch keeps it (no PR is closed and reopened), and the
// update within the major takes a branch of its own meanwhile. Off, the
// stream has one branch, the newest version.
func TestGroupsSeparateMajorMinor(t *testing.T) {
	img := "ghcr.io/alexxit/go2rtc"
	minor := plan.Update{Image: img, From: "1.8.0", To: "1.9.0", Type: "minor"}
	up := plan.Update{Image: img, From: "1.8.0", To: "2.0.0", Type: "major", Minor: &minor}
	plain := "imagebot/ghcr.io-alexxit-go2rtc"
	branches := func(o openBranches, separate bool) map[string]string {
		out := map[string]string{}
		for _, g := range groupsSplit(&plan.Plan{Updates: []plan.Update{up}}, "imagebot/", o, separate) {
			out[g.Updates[0].To] = g.Branch
			if g.Major != (g.Updates[0].To == "2.0.0" && separate) {
				t.Errorf("%s: Major %v", g.Branch, g.Major)
			}
		}
		return out
	}
	none := openBranches{carried: map[string][]string{}, holder: map[string]string{}}
	if got, want := branches(none, true), map[string]string{"1.9.0": plain, "2.0.0": plain + "-major"}; !maps.Equal(got, want) {
		t.Errorf("separate: %v, want %v", got, want)
	}
	if got, want := branches(none, false), map[string]string{"2.0.0": plain}; !maps.Equal(got, want) {
		t.Errorf("one PR: %v, want %v", got, want)
	}
	old := openBranches{carried: map[string][]string{}, holder: map[string]string{plain: streamKey(img, "2.0.0")}}
	old.carry(img, "1.8.0", true, plain)
	if got, want := branches(old, true), map[string]string{"1.9.0": plain + "-from-1.8.0", "2.0.0": plain}; !maps.Equal(got, want) {
		t.Errorf("adopted: %v, want %v", got, want)
	}
}
