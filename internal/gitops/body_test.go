package gitops

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/imagebot/imagebot/internal/gate"
	"github.com/imagebot/imagebot/internal/imagefacts"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/scan"
)

const (
	digestA = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	digestB = "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

func change(file string, line int, oldTag, oldDigest, tag, digest string) plan.Change {
	return plan.Change{
		Ref: scan.Ref{Location: scan.Location{File: file, Line: line}, Tag: oldTag, Digest: oldDigest},
		Tag: tag, Digest: digest,
	}
}

func update(image, from, to, typ, digest string, cs ...plan.Change) plan.Update {
	u := plan.Update{Image: image, From: from, To: to, Type: typ, Digest: digest, Changes: cs}
	for _, c := range cs {
		u.Locations = append(u.Locations, c.Ref.Location)
	}
	return u
}

func groupOf(branch string, us ...plan.Update) group {
	return group{Branch: branch, Image: us[0].Image, Updates: us}
}

var (
	nginxMinor = groupOf("imagebot/docker.io-library-nginx",
		update("docker.io/library/nginx", "1.25.3", "1.26.1", "minor", "",
			change("apps/web/deployment.yaml", 20, "1.25.3", "", "1.26.1", ""),
			change("clusters/prod/kustomization.yaml", 10, "1.25.3", "", "1.26.1", "")))
	apiPinned = groupOf("imagebot/ghcr.io-acme-api",
		update("ghcr.io/acme/api", "v1.7.0", "v2.0.0", "major", digestB,
			change("apps/api/deployment.yaml", 11, "v1.7.0", digestA, "v2.0.0", digestB)))
	redisDigest = groupOf("imagebot/docker.io-library-redis",
		update("docker.io/library/redis", "7.4.1", "7.4.1", "digest", digestB,
			change("charts/cache/values.yaml", 6, "7.4.1", digestA, "", digestB)))
	busyboxPin = groupOf("imagebot/docker.io-bitnami-kubectl",
		update("docker.io/bitnami/kubectl", "latest", "1.30.1", "pin", "",
			change("jobs/cron.yaml", 14, "latest", "", "1.30.1", "")))
	kollaGroup = group{Branch: "imagebot/group-kolla", Kind: kindGroup, Name: "kolla", Updates: []plan.Update{
		update("quay.io/kolla/nova", "2024.1.0", "2024.1.1", "patch", "", change("nova.yaml", 7, "2024.1.0", "", "2024.1.1", "")),
		update("quay.io/kolla/glance", "2024.1.0", "2024.1.1", "patch", "", change("glance.yaml", 7, "2024.1.0", "", "2024.1.1", "")),
	}}
	busyboxTwo = groupOf("imagebot/docker.io-library-busybox",
		update("docker.io/library/busybox", "1.36.0", "1.37.0", "minor", "",
			change("a.yaml", 3, "1.36.0", "", "1.37.0", "")),
		update("docker.io/library/busybox", "1.35.0", "1.36.1", "minor", "",
			change("b.yaml", 4, "1.35.0", "", "1.36.1", "")))
)

func TestTitle(t *testing.T) {
	for _, tc := range []struct {
		g    group
		want string
	}{
		{nginxMinor, "Update nginx to 1.26.1"},
		{apiPinned, "Update ghcr.io/acme/api to v2.0.0"},
		{redisDigest, "Update redis:7.4.1 digest to fedcba987654"},
		{busyboxPin, "Pin bitnami/kubectl:latest to 1.30.1"},
		{busyboxTwo, "Update busybox to 1.37.0, 1.36.1"},
		{kollaGroup, "Update kolla group to 2024.1.1"},
	} {
		if got := title(tc.g); got != tc.want {
			t.Errorf("title(%s) = %q, want %q", tc.g.Branch, got, tc.want)
		}
	}
}

func TestMarkerRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    group
		want marker
	}{
		{"plain", nginxMinor, marker{Branch: "imagebot/docker.io-library-nginx",
			Moves: []markedMove{{Image: "docker.io/library/nginx", From: "1.25.3", To: "1.26.1",
				Locations: []string{"apps/web/deployment.yaml:20", "clusters/prod/kustomization.yaml:10"}}}}},
		{"pinned", apiPinned, marker{Branch: "imagebot/ghcr.io-acme-api",
			Moves: []markedMove{{Image: "ghcr.io/acme/api", From: "v1.7.0", To: "v2.0.0", Digest: digestB}}}},
		{"digest", redisDigest, marker{Branch: "imagebot/docker.io-library-redis",
			Moves: []markedMove{{Image: "docker.io/library/redis", From: "7.4.1", To: "7.4.1", Digest: digestB}}}},
		{"two updates", busyboxTwo, marker{Branch: "imagebot/docker.io-library-busybox",
			Moves: []markedMove{{Image: "docker.io/library/busybox", From: "1.36.0", To: "1.37.0"}, {Image: "docker.io/library/busybox", From: "1.35.0", To: "1.36.1"}}}},
		{"group", kollaGroup, marker{Kind: kindGroup, Group: "kolla", Branch: "imagebot/group-kolla",
			Moves: []markedMove{{Image: "quay.io/kolla/nova", From: "2024.1.0", To: "2024.1.1"}, {Image: "quay.io/kolla/glance", From: "2024.1.0", To: "2024.1.1"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := body(tc.g)
			got, ok := parseMarker(b)
			if !ok {
				t.Fatalf("no marker in\n%s", b)
			}
			// Locations are checked in full for "plain" only.
			opts := cmp.Options{}
			if tc.name != "plain" {
				opts = append(opts, cmpopts.IgnoreFields(markedMove{}, "Locations"))
			}
			if d := cmp.Diff(tc.want, got, opts); d != "" {
				t.Errorf("marker (-want +got):\n%s", d)
			}
			if d := cmp.Diff(markerOf(tc.g), got); d != "" {
				t.Errorf("markerOf and parseMarker disagree (-markerOf +parsed):\n%s", d)
			}
			if !sameMarker(b, tc.g) {
				t.Error("sameMarker(body(g), g) = false")
			}
			// What people do to a PR description: text around it, CRLF
			// line ends from the web editor.
			edited := "Reviewed, LGTM.\r\n\r\n" + strings.ReplaceAll(b, "\n", "\r\n") + "\r\nthanks"
			if again, ok := parseMarker(edited); !ok || !cmp.Equal(again, got) {
				t.Errorf("edited body: %+v, %v", again, ok)
			}
			for _, u := range tc.g.Updates {
				if !got.proposes(u) {
					t.Errorf("marker does not propose %s -> %s", u.From, u.To)
				}
			}
		})
	}
}

// TestMarkerV1: the markers of PRs opened before groups are read as the
// same marker, so a rerun neither rewrites their bodies nor forgets what a
// closed one declined.
func TestMarkerV1(t *testing.T) {
	v1 := "old body\n<!-- imagebot:v1 {\"image\":\"ghcr.io/acme/api\",\"branch\":\"imagebot/ghcr.io-acme-api\",\"updates\":[{\"from\":\"v1.7.0\",\"to\":\"v2.0.0\",\"digest\":\"" + digestB + "\",\"locations\":[\"apps/api/deployment.yaml:11\"]}]} -->\n"
	if !sameMarker(v1, apiPinned) {
		m, _ := parseMarker(v1)
		t.Errorf("v1 marker %+v is not the marker of %+v", m, markerOf(apiPinned))
	}
	m, _ := parseMarker(v1)
	if !m.proposes(apiPinned.Updates[0]) {
		t.Error("a closed v1 PR no longer declines its version")
	}
}

func TestMarkerChanges(t *testing.T) {
	b := body(nginxMinor)
	newer := groupOf(nginxMinor.Branch, update("docker.io/library/nginx", "1.25.3", "1.27.0", "minor", "",
		change("apps/web/deployment.yaml", 20, "1.25.3", "", "1.27.0", "")))
	if sameMarker(b, newer) {
		t.Error("a newer version has the same marker")
	}
	m, _ := parseMarker(b)
	if m.proposes(newer.Updates[0]) {
		t.Error("the 1.26.1 PR proposes 1.27.0: declining it would decline every later version")
	}
	rebuilt := update("docker.io/library/redis", "7.4.1", "7.4.1", "digest", digestA)
	if rm, _ := parseMarker(body(redisDigest)); rm.proposes(rebuilt) {
		t.Error("declining one digest declines another image build of the same tag")
	}
}

func TestParseMarkerRejects(t *testing.T) {
	for _, b := range []string{
		"",
		"Bump nginx to 1.26.1, by hand.",
		"<!-- imagebot:v1 -->",
		"<!-- imagebot:v1 {not json} -->",
		`<!-- imagebot:v1 {"branch":"imagebot/x","updates":[]} -->`, // no image
		`<!-- imagebot:v2 {"image":"docker.io/library/nginx"} -->`,
		`<!-- imagebot:v2 {"branch":"imagebot/x","moves":[{"from":"1","to":"2"}]} -->`, // a move without its image
		`<!-- imagebot:foreign 0123abcd -->`,
	} {
		if m, ok := parseMarker(b); ok {
			t.Errorf("parseMarker(%q) = %+v, true", b, m)
		}
	}
}

func TestBody(t *testing.T) {
	g := apiPinned
	g.Updates = []plan.Update{g.Updates[0]}
	g.Infos = []*registry.Info{{
		Created: time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC),
		Labels:  map[string]string{"org.opencontainers.image.source": "https://github.com/acme/api.git"},
	}}
	want := "This pull request moves **ghcr.io/acme/api** from `v1.7.0` to `v2.0.0` (major).\n\n" +
		"| Location | Old | New | Type |\n|---|---|---|---|\n" +
		"| `apps/api/deployment.yaml:11` | `v1.7.0`<br>`0123456789ab` | `v2.0.0`<br>`fedcba987654` | major |\n" +
		"\nNew digest: `" + digestB + "`\n" +
		"\nSource: https://github.com/acme/api · [release notes for v2.0.0](https://github.com/acme/api/releases/tag/v2.0.0) · built 2024-07-01\n" +
		"\nMerging is the human gate: once merged, your GitOps controller rolls it out. " +
		"Closing this pull request without merging tells imagebot not to propose this version again.\n\n" +
		`<!-- imagebot:v1 {"image":"ghcr.io/acme/api","branch":"imagebot/ghcr.io-acme-api","updates":[{"from":"v1.7.0","to":"v2.0.0","digest":"` + digestB + `","locations":["apps/api/deployment.yaml:11"]}]} -->` + "\n"
	if d := cmp.Diff(want, body(g)); d != "" {
		t.Errorf("body (-want +got):\n%s", d)
	}
	if first, second := body(g), body(g); first != second {
		t.Error("body is not deterministic")
	}

	for _, tc := range []struct {
		name   string
		info   *registry.Info
		notes  string
		absent string
	}{
		{"no info", nil, "", "Source:"},
		{"plain http source is not linked", &registry.Info{Labels: map[string]string{"org.opencontainers.image.source": "http://example.com/x"}}, "", "Source:"},
		{"non-GitHub source has no release link", &registry.Info{Labels: map[string]string{"org.opencontainers.image.source": "https://gitlab.com/acme/api/"}}, "Source: https://gitlab.com/acme/api\n", "release notes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := nginxMinor
			g.Updates = []plan.Update{g.Updates[0]}
			g.Infos = []*registry.Info{tc.info}
			b := body(g)
			if tc.notes != "" && !strings.Contains(b, tc.notes) {
				t.Errorf("body lacks %q:\n%s", tc.notes, b)
			}
			if strings.Contains(b, tc.absent) {
				t.Errorf("body has %q:\n%s", tc.absent, b)
			}
			for _, row := range []string{
				"| `apps/web/deployment.yaml:20` | `1.25.3` | `1.26.1` | minor |",
				"| `clusters/prod/kustomization.yaml:10` | `1.25.3` | `1.26.1` | minor |",
			} {
				if !strings.Contains(b, row) {
					t.Errorf("body lacks row %s:\n%s", row, b)
				}
			}
		})
	}
}

// A digest-only update keeps the old tag in the table's New column.
func TestBodyDigestOnly(t *testing.T) {
	b := body(redisDigest)
	row := "| `charts/cache/values.yaml:6` | `7.4.1`<br>`0123456789ab` | `7.4.1`<br>`fedcba987654` | digest |"
	if !strings.Contains(b, row) {
		t.Errorf("body lacks %s:\n%s", row, b)
	}
}

// TestBodyChecks: the gates' evidence is a short, deterministic list.
func TestBodyChecks(t *testing.T) {
	created := time.Date(2024, 7, 1, 8, 0, 0, 0, time.UTC)
	g := apiPinned
	u := g.Updates[0]
	u.Evidence = &gate.Evidence{
		Digest:    digestB,
		Age:       &gate.AgeEvidence{Created: created, From: imagefacts.FromConfig, Limit: "3d"},
		Platforms: &gate.PlatformsEvidence{Have: []string{"linux/amd64", "linux/arm64"}, Want: []string{"linux/amd64", "linux/arm64"}, Keep: true},
		Signature: &gate.Signer{Method: "sig-tag", Signer: "https://github.com/acme/api/.github/workflows/release.yml@refs/tags/v2.0.0", Issuer: "https://token.actions.githubusercontent.com"},
	}
	g.Updates = []plan.Update{u}
	want := "\n**Checks**\n\n" +
		"- Age: built 2024-07-01 08:00 UTC (image config), older than `minAge` 3d\n" +
		"- Platforms: `linux/amd64`, `linux/arm64`: every platform of the current image (`linux/amd64`, `linux/arm64`)\n" +
		"- Signature: `https://github.com/acme/api/.github/workflows/release.yml@refs/tags/v2.0.0` issued by `https://token.actions.githubusercontent.com` on `fedcba987654` (cosign, signature tag)\n"
	b := body(g)
	if !strings.Contains(b, want+"\nMerging is the human gate") {
		t.Errorf("body lacks the checks before the closing words:\n%s\nwant:\n%s", b, want)
	}
	if body(g) != b {
		t.Error("body is not deterministic")
	}

	u.Evidence = &gate.Evidence{
		Digest:    digestB,
		Settled:   &gate.AgeEvidence{Created: created, Limit: "6h"},
		Platforms: &gate.PlatformsEvidence{Have: []string{"linux/amd64"}, Want: []string{"linux/amd64"}},
		Signature: &gate.Signer{Method: "referrer", Signer: "key SHA256:abcd"},
	}
	g.Updates = []plan.Update{u}
	want = "\n**Checks**\n\n" +
		"- Settled: newest platform image built 2024-07-01 08:00 UTC, older than `digestSettle` 6h\n" +
		"- Platforms: `linux/amd64`: every platform the policy lists (`linux/amd64`)\n" +
		"- Signature: `key SHA256:abcd` on `fedcba987654` (cosign, OCI referrer with a Sigstore bundle)\n"
	if b := body(g); !strings.Contains(b, want) {
		t.Errorf("body:\n%s\nwant:\n%s", b, want)
	}
	if b := body(nginxMinor); strings.Contains(b, "Checks") {
		t.Errorf("a policy without gates has no checks:\n%s", b)
	}
}

// TestBodyNotice: a plain PR says what the plan noticed along its update
// (a newer tag held back by a gate, a version only in another variant),
// once, as a group's PR does.
func TestBodyNotice(t *testing.T) {
	u := update("docker.io/library/nginx", "1.25.3", "1.26.1", "minor", "",
		change("apps/web/deployment.yaml", 20, "1.25.3", "", "1.26.1", ""))
	u.Notice = "held back 1.27.0: 5h old, minAge 3d"
	w := u
	w.From = "1.25.2"
	b := body(groupOf("imagebot/docker.io-library-nginx", u, w))
	if n := strings.Count(b, "Note: held back 1.27.0: 5h old, minAge 3d.\n"); n != 1 {
		t.Errorf("the notice is said %d times, want once:\n%s", n, b)
	}
	if strings.Contains(markerOf(groupOf("imagebot/docker.io-library-nginx", u)).text(), "held back") {
		t.Error("a plain PR's marker carries its notice")
	}
}

// What the plan says along an update (a notice, the grounds of a rollout)
// carries tags and names from elsewhere: it can neither mention people,
// embed HTML nor forge a second marker; and a title stays within GitHub's
// 256 characters however many images a group moves.
func TestBodyTamesNotes(t *testing.T) {
	g := nginxMinor
	u := g.Updates[0]
	u.Notice = "held back 1.27.0 @octocat <img src=x> " + markerOf(busyboxTwo).text()
	g.Updates = []plan.Update{u}
	b := body(g)
	for _, bad := range []string{"@octocat", "<img", "<!-- imagebot:v1 {\"image\":\"docker.io/library/busybox\""} {
		if strings.Contains(b, bad) {
			t.Errorf("body holds %q:\n%s", bad, b)
		}
	}
	if m, ok := parseMarker(b); !ok || m.Branch != g.Branch {
		t.Errorf("own marker not read: %+v %v", m, ok)
	}
	big := group{Kind: kindGroup, Name: "all", Branch: "imagebot/group-all"}
	for i := range 40 {
		big.Updates = append(big.Updates, update(fmt.Sprintf("ghcr.io/acme/service-%02d", i), "1.0.0", fmt.Sprintf("1.%d.0", i+1), "minor", ""))
	}
	if n := len([]rune(title(big))); n > maxTitle {
		t.Errorf("title of %d characters", n)
	}
}
