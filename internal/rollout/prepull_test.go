package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/prepull"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
)

const prepullConfig = `prepull:
  match: ["ghcr.io/acme/**"]
  manifest: platform/prepull/daemonset.yaml
  lead: 30m
groups:
  - name: acme
    match: ["ghcr.io/acme/worker", "ghcr.io/acme/builder"]
`

const dsPath = "platform/prepull/daemonset.yaml"

var dsSpec = prepull.Spec{Namespace: "kube-system", Helper: "ghcr.io/imagebot/imagebot:v0.1.0"}

func daemonSet(t *testing.T, es ...prepull.Entry) string {
	t.Helper()
	out, err := prepull.Render(nil, dsSpec, es)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

var (
	apiV2     = prepull.Entry{Image: "ghcr.io/acme/api", Tag: "v2.0.0"}
	workerB11 = prepull.Entry{Image: "ghcr.io/acme/worker", Tag: "build-11"}
	builderB1 = prepull.Entry{Image: "ghcr.io/acme/builder", Tag: "build-100"}
)

// updates are what plan.Build proposes for the apps: api to v2.0.0, the
// acme group's worker and builder, nginx (not pre-pulled).
func updates(refs []scan.Ref) []plan.Update {
	to := map[string]string{"ghcr.io/acme/api": "v2.0.0", "ghcr.io/acme/worker": "build-11", "ghcr.io/acme/builder": "build-100", "docker.io/library/nginx": "1.26.1"}
	var ups []plan.Update
	for _, r := range refs {
		u := plan.Update{Image: r.Image, Repo: r.Repo, From: r.Tag, To: to[r.Image], Type: "major",
			Changes: []plan.Change{{Ref: r, Tag: to[r.Image]}}, Locations: []scan.Location{r.Location}}
		if strings.HasPrefix(r.Image, "ghcr.io/acme/w") || strings.HasPrefix(r.Image, "ghcr.io/acme/b") {
			u.Group = "acme"
		}
		ups = append(ups, u)
	}
	return ups
}

var apps = commit{"c0", 240 * time.Hour, map[string]string{
	"apps/app.yaml": deploy("ghcr.io/acme/api:v1.7.0", "ghcr.io/acme/worker:build-9", "ghcr.io/acme/builder:build-98", "nginx:1.25.3"),
}}

// TestPrepull: an update of a matching image first adds it to the
// DaemonSet; its rollout waits until that has been on the default branch
// for the lead, and then removes it again. A group rolls out together.
func TestPrepull(t *testing.T) {
	tests := []struct {
		name    string
		commits []commit
		updates []string
		notices []string
		// files is the DaemonSet's entries after each update's edit.
		files map[string][]prepull.Entry
	}{{
		name:    "nothing pre-pulled yet",
		commits: []commit{apps},
		updates: []string{
			" docker.io/library/nginx 1.25.3 -> 1.26.1 env= group= [apps/app.yaml:16]",
			"prepull ghcr.io/acme/api v1.7.0 -> v2.0.0 env= group= [apps/app.yaml:10]\n  Each rollout pull request opens once its image has been in the DaemonSet on the default branch for 30m (prepull.lead).",
			"prepull ghcr.io/acme/builder build-98 -> build-100 env= group= [apps/app.yaml:14]\n  Each rollout pull request opens once its image has been in the DaemonSet on the default branch for 30m (prepull.lead).",
			"prepull ghcr.io/acme/worker build-9 -> build-11 env= group= [apps/app.yaml:12]\n  Each rollout pull request opens once its image has been in the DaemonSet on the default branch for 30m (prepull.lead).",
		},
		files: map[string][]prepull.Entry{
			"ghcr.io/acme/api":     {apiV2},
			"ghcr.io/acme/builder": {builderB1},
			"ghcr.io/acme/worker":  {workerB11},
		},
	}, {
		// api has been pre-pulled for 10 minutes, the group's images for
		// an hour, but builder's not at all: nothing rolls out yet.
		name: "within the lead",
		commits: []commit{apps, {"c1", time.Hour, map[string]string{dsPath: daemonSet(t, workerB11)}},
			{"c2", 10 * time.Minute, map[string]string{dsPath: daemonSet(t, workerB11, apiV2)}}},
		updates: []string{
			" docker.io/library/nginx 1.25.3 -> 1.26.1 env= group= [apps/app.yaml:16]",
			"prepull ghcr.io/acme/builder build-98 -> build-100 env= group= [apps/app.yaml:14]\n  Each rollout pull request opens once its image has been in the DaemonSet on the default branch for 30m (prepull.lead).",
		},
		notices: []string{
			"apps/app.yaml:10 ghcr.io/acme/api:v1.7.0 prepulling: pre-pulling v2.0.0 since 2024-06-10 11:50 UTC (commit c2), rollout after 2024-06-10 12:20 UTC",
			"apps/app.yaml:12 ghcr.io/acme/worker:build-9 prepulling: pre-pulled since 2024-06-10 11:00 UTC (commit c1); the rollout waits until the other images of its pull request are pre-pulled too",
		},
		files: map[string][]prepull.Entry{"ghcr.io/acme/builder": {workerB11, apiV2, builderB1}},
	}, {
		name: "after the lead",
		commits: []commit{apps, {"c1", 2 * time.Hour, map[string]string{dsPath: daemonSet(t, workerB11, builderB1)}},
			{"c2", 40 * time.Minute, map[string]string{dsPath: daemonSet(t, workerB11, builderB1, apiV2)}}},
		updates: []string{
			" docker.io/library/nginx 1.25.3 -> 1.26.1 env= group= [apps/app.yaml:16]",
			" ghcr.io/acme/api v1.7.0 -> v2.0.0 env= group= [apps/app.yaml:10]\n  `v2.0.0` has been pre-pulled on the nodes since 2024-06-10 11:20 UTC (commit `c2`), longer than the lead of 30m; this also removes it from the pre-pull DaemonSet.",
			" ghcr.io/acme/builder build-98 -> build-100 env= group=acme [apps/app.yaml:14]\n  `build-100` has been pre-pulled on the nodes since 2024-06-10 10:00 UTC (commit `c1`), longer than the lead of 30m; this also removes it from the pre-pull DaemonSet.",
			" ghcr.io/acme/worker build-9 -> build-11 env= group=acme [apps/app.yaml:12]\n  `build-11` has been pre-pulled on the nodes since 2024-06-10 10:00 UTC (commit `c1`), longer than the lead of 30m; this also removes it from the pre-pull DaemonSet.",
		},
		files: map[string][]prepull.Entry{
			"ghcr.io/acme/api":     {builderB1, workerB11},
			"ghcr.io/acme/builder": {apiV2, workerB11},
			"ghcr.io/acme/worker":  {apiV2, builderB1},
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseConfig(t, prepullConfig)
			h := &history{commits: tc.commits}
			refs := scanTip(t, h, cfg)
			p := basePlan(cfg, refs, updates(refs)...)
			err := rollout.Apply(t.Context(), p, refs, rollout.Options{
				Config: cfg, History: h, Policy: defaultPolicy, Now: now, Tip: h.tipFS(), Helper: dsSpec.Helper,
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.updates, updateLines(p)); d != "" {
				t.Errorf("updates (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.notices, noticeLines(p)); d != "" {
				t.Errorf("notices (-want +got):\n%s", d)
			}
			tip := []byte(h.tree(len(h.commits) - 1)[dsPath])
			for _, u := range p.Updates {
				want, edits := tc.files[u.Image]
				if !edits {
					if len(u.Files) > 0 {
						t.Errorf("%s edits %d files", u.Image, len(u.Files))
					}
					continue
				}
				if len(u.Files) != 1 || u.Files[0].Path != dsPath {
					t.Fatalf("%s: files %+v", u.Image, u.Files)
				}
				out, err := u.Files[0].Apply(tip)
				if err != nil {
					t.Fatal(err)
				}
				got, _ := prepull.Entries(out)
				if d := cmp.Diff(sortedEntries(want), got); d != "" {
					t.Errorf("%s: DaemonSet after its edit (-want +got):\n%s", u.Image, d)
				}
			}
		})
	}
}

func sortedEntries(es []prepull.Entry) []prepull.Entry {
	out, _ := prepull.Entries([]byte(must(prepull.Render(nil, dsSpec, es))))
	return out
}

func must(b []byte, err error) string {
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestPrepullNotOurs: a file at prepull.manifest that is not imagebot's
// DaemonSet is never overwritten; the updates that would pre-pull wait,
// and the file is a problem naming what to do.
func TestPrepullNotOurs(t *testing.T) {
	cfg := parseConfig(t, prepullConfig)
	h := &history{commits: []commit{apps, {"c1", time.Hour, map[string]string{dsPath: "kind: ConfigMap\n"}}}}
	refs := scanTip(t, h, cfg)
	p := basePlan(cfg, refs, updates(refs)...)
	if err := rollout.Apply(t.Context(), p, refs, rollout.Options{Config: cfg, History: h, Now: now, Tip: h.tipFS()}); err != nil {
		t.Fatal(err)
	}
	if got := updateLines(p); len(got) != 1 || !strings.Contains(got[0], "nginx") {
		t.Errorf("updates %q, want nginx's alone", got)
	}
	if len(p.Problems) != 1 || p.Problems[0].File != dsPath || !strings.Contains(p.Problems[0].Message, "prepull.manifest") {
		t.Errorf("problems %+v", p.Problems)
	}
}

// TestPrepullNewestOnly: the pre-pull stages an image's newest version; the
// version within its major (separateMajorMinor's second PR) is not
// pre-pulled, so it never rolls out on its own, past the DaemonSet.
func TestPrepullNewestOnly(t *testing.T) {
	cfg := parseConfig(t, prepullConfig)
	h := &history{commits: []commit{apps, {"c1", 2 * time.Hour, map[string]string{dsPath: daemonSet(t, apiV2)}}}}
	refs := scanTip(t, h, cfg)
	ups := updates(refs)
	for i := range ups {
		m := ups[i]
		m.To, m.Type = m.To+"-within", "minor"
		ups[i].Minor = &m
	}
	p := basePlan(cfg, refs, ups...)
	if err := rollout.Apply(t.Context(), p, refs, rollout.Options{Config: cfg, History: h, Now: now, Tip: h.tipFS()}); err != nil {
		t.Fatal(err)
	}
	for _, u := range p.Updates {
		if got := u.Minor != nil; got != (u.Image == "docker.io/library/nginx") {
			t.Errorf("%s %s: Minor %v", u.Kind, u.Image, u.Minor)
		}
	}
}
