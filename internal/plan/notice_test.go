package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
)

// TestBuildNotices: every reference the scan found ends as a location of an
// update or as a notice saying why it was left alone, sorted by file and
// line.
func TestBuildNotices(t *testing.T) {
	reg := newRegistry(t, seed)
	files := map[string]string{
		"a.yaml": pod(
			"nginx:1.26.1",                    // 8: up to date
			"nginx:1.26",                      // 10: floats over 1.26.1
			"nginx:stable",                    // 12: floats, no version
			"nginx",                           // 14: no tag
			"busybox@"+zeros,                  // 16: digest only
			"ghcr.io/acme/frozen:3.1.0",       // 18: skipped
			"ghcr.io/acme/worker:abc",         // 20: pattern
			"node:22.3.0-alpine3.19",          // 22: up to date
			"node:20.12.0-alpine3.18",         // 24: newer only as alpine3.19
			"node:sha-3f9a2c1",                // 26: a commit, no version
			"node:20.11.1-alpine3.18",         // 28: an update with a notice
			"redis:7.4.1-alpine@DIGEST",       // 30: pinned to the current digest
			"ghcr.io/acme/api:v1.8.2@"+zeros,  // 32: a digest refresh: an update
			"${REGISTRY}/tool:${TAG}",         // 34: a variable, seen by scan
			"nginx:"+strings.Repeat("1", 200), // 36: not a valid reference
		),
	}
	files["a.yaml"] = strings.ReplaceAll(files["a.yaml"], "@DIGEST", "@"+reg.digest(t, "docker.io/library/redis", "7.4.1-alpine"))
	res := scanFiles(t, files)
	p, err := plan.Build(t.Context(), res, plan.Options{
		Registry: reg.client(),
		Policy: policies(t, map[string]policy.Spec{
			"ghcr.io/acme/frozen": {Skip: true},
			"ghcr.io/acme/worker": {Pattern: `^build-(?P<version>\d+)$`},
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a.yaml:8 docker.io/library/nginx:1.26.1 up-to-date",
		"a.yaml:10 docker.io/library/nginx:1.26 floating: 1.26 floats, now 1.26.1 (pin: tag)",
		"a.yaml:12 docker.io/library/nginx:stable floating: stable floats (pin: tag)",
		"a.yaml:14 docker.io/library/nginx: no-tag: Kubernetes pulls latest; pin: tag turns it into a version",
		"a.yaml:16 docker.io/library/busybox: digest-only: no tag to compare; the digest is kept",
		"a.yaml:18 ghcr.io/acme/frozen:3.1.0 skipped: skip: true",
		`a.yaml:20 ghcr.io/acme/worker:abc pattern: tag "abc" does not match pattern "^build-(?P<version>\d+)$"`,
		"a.yaml:22 docker.io/library/node:22.3.0-alpine3.19 up-to-date",
		"a.yaml:24 docker.io/library/node:20.12.0-alpine3.18 other-variant: 22.3.0 only as alpine3.19",
		"a.yaml:26 docker.io/library/node:sha-3f9a2c1 no-version: sha-3f9a2c1 has no version to compare, only a commit id: set a pattern and versioning to order such tags",
		"a.yaml:30 docker.io/library/redis:7.4.1-alpine up-to-date",
		`a.yaml:34 : variable: "${REGISTRY}/tool:${TAG}": a placeholder filled in by another tool; only literal references are updated`,
		`a.yaml:36 : invalid: "nginx:` + strings.Repeat("1", 94) + `…": tag is 200 characters long, more than 128`,
	}
	if diff := cmp.Diff(want, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	wantUpdates := []string{
		"docker.io/library/node 20.11.1-alpine3.18 -> 20.12.0-alpine3.18 minor [a.yaml:28] notice: 22.3.0 only as alpine3.19",
		"ghcr.io/acme/api v1.8.2 -> v1.8.2 digest [a.yaml:32] notice: ",
	}
	var gotUpdates []string
	for _, u := range p.Updates {
		var locs []string
		for _, l := range u.Locations {
			locs = append(locs, fmt.Sprintf("%s:%d", l.File, l.Line))
		}
		gotUpdates = append(gotUpdates, fmt.Sprintf("%s %s -> %s %s %v notice: %s", u.Image, u.From, u.To, u.Type, locs, u.Notice))
	}
	if diff := cmp.Diff(wantUpdates, gotUpdates); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	assertAccounted(t, len(res.Refs)+len(res.Skipped), p)
}

// TestBuildNoDigestField: under pin: digest, a `# imagebot: tag` marker has
// no place for a digest. Plan lists only what apply can write: a newer tag
// without a digest, and no update at all when the tag is current.
func TestBuildNoDigestField(t *testing.T) {
	reg := newRegistry(t, seed)
	res := scanFiles(t, map[string]string{
		"m.yaml": "old: \"build-10\" # imagebot: tag ghcr.io/acme/worker\n" +
			"new: \"build-11\" # imagebot: tag ghcr.io/acme/worker\n",
		"p.yaml": pod("ghcr.io/acme/worker:build-11"),
	})
	p, err := plan.Build(t.Context(), res, plan.Options{
		Registry: reg.client(),
		Policy:   policies(t, map[string]policy.Spec{"ghcr.io/acme/worker": {Pin: "digest"}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	d := reg.digest(t, "ghcr.io/acme/worker", "build-11")
	want := []summary{{
		Image: "ghcr.io/acme/worker", From: "build-10", To: "build-11", Type: "major",
		Locations: []string{"m.yaml:1"}, Changes: []string{"m.yaml:1 build-11@"},
	}, {
		Image: "ghcr.io/acme/worker", From: "build-11", To: "build-11", Type: "digest", Digest: d,
		Locations: []string{"p.yaml:8"}, Changes: []string{"p.yaml:8 @" + d},
	}}
	if diff := cmp.Diff(want, summarize(p)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	wantNotices := []string{
		"m.yaml:2 ghcr.io/acme/worker:build-11 no-digest-field: pin: digest, but no digest can be written here: add one by hand, or mark the full reference (# imagebot: image)",
	}
	if diff := cmp.Diff(wantNotices, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	assertAccounted(t, len(res.Refs), p)
}

func noticeLines(p *plan.Plan) []string {
	var out []string
	for _, n := range p.Notices {
		s := fmt.Sprintf("%s:%d %s:%s %s", n.File, n.Line, n.Image, n.Tag, n.Reason)
		if n.Detail != "" {
			s += ": " + n.Detail
		}
		out = append(out, s)
	}
	return out
}

// assertAccounted checks that each of refs references is an update's
// location or a notice, exactly once, or lies under a problem.
func assertAccounted(t *testing.T, refs int, p *plan.Plan) {
	t.Helper()
	seen := map[string]int{}
	for _, u := range p.Updates {
		for _, c := range u.Changes {
			seen[c.Ref.Location.String()]++
		}
	}
	n := 0
	for _, u := range p.Updates {
		n += len(u.Locations)
	}
	n += len(p.Notices)
	for _, pr := range p.Problems {
		if pr.Failed {
			t.Skip("failed lookups are problems, not notices")
		}
	}
	for loc, k := range seen {
		if k > 1 {
			t.Errorf("%s is the location of %d updates", loc, k)
		}
	}
	if n != refs {
		t.Errorf("%d references, %d update locations and notices", refs, n)
	}
}

// TestBuildPinNotice: a pin update says nothing more than that it pins.
func TestBuildPinNotice(t *testing.T) {
	reg := newRegistry(t, seed)
	p, err := plan.Build(t.Context(), scanFiles(t, map[string]string{"a.yaml": pod("busybox:latest")}), plan.Options{
		Registry: reg.client(),
		Policy:   policies(t, map[string]policy.Spec{"docker.io/library/busybox": {Pin: "tag"}}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 1 || p.Updates[0].Type != "pin" || p.Updates[0].Notice != "" || len(p.Notices) != 0 {
		t.Errorf("plan %+v, notices %+v: want one pin update without a notice", summarize(p), p.Notices)
	}
}

// TestBuildPassedOver: `up-to-date` only when nothing newer exists in any
// shape; a reference left alone beside a newer version in another shape
// names it and why, in the plan's notices. A build counter after a word
// moves, and a dated build's less precise alias does not float.
func TestBuildPassedOver(t *testing.T) {
	reg := newRegistry(t, map[string][][]string{
		"ghcr.io/acme/servercore":   {{"10.0.17763.5576"}, {"10.0.20348.2340"}},
		"docker.io/library/openjdk": {{"23-ea-12"}, {"24-ea-3"}},
		"ghcr.io/acme/ubi9":         {{"9.2"}, {"9.4-1181.1712567892"}, {"9.4-1214", "9.4"}},
		"docker.io/library/busybox": {{"1.36.1"}, {"1.37.0"}},
		"ghcr.io/acme/app":          {{"3.10-main-412"}, {"3.10-main-530"}},
		"ghcr.io/acme/php":          {{"2.4-php-202301051200", "2.4.58-php-202301051200"}, {"3-php-202406010900"}},
	})
	res := scanFiles(t, map[string]string{"a.yaml": pod(
		"ghcr.io/acme/servercore:10.0.17763.5576", // 8
		"openjdk:23-ea-12",                        // 10
		"ghcr.io/acme/ubi9:9.2",                   // 12
		"busybox:1.37.0",                          // 14
		"ghcr.io/acme/app:3.10-main-412",          // 16
		"ghcr.io/acme/php:2.4-php-202301051200",   // 18
	)})
	p, err := plan.Build(t.Context(), res, plan.Options{Registry: reg.client(), Policy: policies(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a.yaml:8 ghcr.io/acme/servercore:10.0.17763.5576 other-os: 10.0.20348.2340 is newer but for another Windows OS build (10.0.20348, not 10.0.17763): a container's OS build must match its node's, so it is never proposed",
		"a.yaml:10 docker.io/library/openjdk:23-ea-12 newer-prerelease: 24-ea-3 is newer but a prerelease of another version (24, not 23): a prerelease moves only to a later one of its own version, or to a release",
		"a.yaml:12 ghcr.io/acme/ubi9:9.2 newer-floating: 9.4 is newer but floats, now 9.4-1214 (an alias that moves): not proposed",
		"a.yaml:14 docker.io/library/busybox:1.37.0 up-to-date",
	}
	if diff := cmp.Diff(want, noticeLines(p)); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
	wantUpdates := []summary{{
		Image: "ghcr.io/acme/app", From: "3.10-main-412", To: "3.10-main-530", Type: "build",
		Locations: []string{"a.yaml:16"}, Changes: []string{"a.yaml:16 3.10-main-530@"},
	}, {
		Image: "ghcr.io/acme/php", From: "2.4-php-202301051200", To: "3-php-202406010900", Type: "major",
		Locations: []string{"a.yaml:18"}, Changes: []string{"a.yaml:18 3-php-202406010900@"},
	}}
	if diff := cmp.Diff(wantUpdates, summarize(p)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	assertAccounted(t, len(res.Refs), p)
}
