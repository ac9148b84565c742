package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/rollout"
)

const envConfig = `environments:
  - name: staging
    paths: ["envs/staging/**"]
  - name: production
    paths: ["envs/production/**"]
    promoteFrom: staging
    soak: 24h
    requireStatus: ["flux/staging"]
`

const (
	stagingFile = "envs/staging/api.yaml"
	prodFile    = "envs/production/api.yaml"
)

func staging(tag string) map[string]string {
	return map[string]string{stagingFile: deploy("ghcr.io/acme/api:" + tag)}
}

// root is the first commit: both environments at v1.7.0, ten days ago.
var root = commit{"c0", 240 * time.Hour, map[string]string{
	stagingFile: deploy("ghcr.io/acme/api:v1.7.0"),
	prodFile:    deploy("ghcr.io/acme/api:v1.7.0"),
}}

const green, red = "success", "failure"

// TestPromote: production gets exactly the version that has been in
// staging for the soak, from the commit that brought it, with the required
// status successful on that commit; never anything newer.
func TestPromote(t *testing.T) {
	tests := []struct {
		name     string
		commits  []commit
		statuses statuses
		config   string
		limit    int
		updates  []string
		notices  []string
	}{{
		name:     "before soak",
		commits:  []commit{root, {"c1", 2 * time.Hour, staging("v1.8.2")}},
		statuses: statuses{"c0": {"flux/staging": green}, "c1": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: v1.8.2 has been in staging since 2024-06-10 10:00 UTC (commit c1); it soaks until 2024-06-11 10:00 UTC",
		},
	}, {
		name:     "soaked, status successful",
		commits:  []commit{root, {"c1", 30 * time.Hour, staging("v1.8.2")}},
		statuses: statuses{"c1": {"flux/staging": green, "argocd/other": red}},
		updates: []string{"promotion ghcr.io/acme/api v1.7.0 -> v1.8.2 env=production group= [envs/production/api.yaml:10]" +
			"\n  `v1.8.2` has been in **staging** since 2024-06-09 06:00 UTC (commit c1), longer than the soak of 24h." +
			"\n  Statuses on commit `c1`: `flux/staging` success."},
	}, {
		name:     "soaked, status failed",
		commits:  []commit{root, {"c1", 30 * time.Hour, staging("v1.8.2")}},
		statuses: statuses{"c0": {"flux/staging": green}, "c1": {"flux/staging": red}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: v1.8.2 has been in staging since 2024-06-09 06:00 UTC (commit c1), but `flux/staging` is failure",
		},
	}, {
		name:    "soaked, status never reported",
		commits: []commit{root, {"c1", 30 * time.Hour, staging("v1.8.2")}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: v1.8.2 has been in staging since 2024-06-09 06:00 UTC (commit c1), but `flux/staging` has not reported",
		},
	}, {
		// A status on a later commit says nothing of this one.
		name:     "status on another commit",
		commits:  []commit{root, {"c1", 30 * time.Hour, staging("v1.8.2")}, {"c2", time.Hour, map[string]string{"README.md": "hi"}}},
		statuses: statuses{"c2": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: v1.8.2 has been in staging since 2024-06-09 06:00 UTC (commit c1), but `flux/staging` has not reported",
		},
	}, {
		// v1.9.0 reached staging an hour ago: until it soaks, the soaked
		// v1.8.2 stays proposed, and the PR says what comes next.
		name:     "newer version still soaking",
		commits:  []commit{root, {"c1", 72 * time.Hour, staging("v1.8.2")}, {"c2", time.Hour, staging("v1.9.0")}},
		statuses: statuses{"c1": {"flux/staging": green}, "c2": {"flux/staging": green}},
		updates: []string{"promotion ghcr.io/acme/api v1.7.0 -> v1.8.2 env=production group= [envs/production/api.yaml:10]" +
			"\n  `v1.8.2` was in **staging** from 2024-06-07 12:00 UTC (commit c1) until 2024-06-10 11:00 UTC, longer than the soak of 24h." +
			"\n  Statuses on commit `c1`: `flux/staging` success." +
			"\n  note: v1.9.0 has been in staging since 2024-06-10 11:00 UTC (commit c2); it soaks until 2024-06-11 11:00 UTC"},
	}, {
		name:     "newer version soaked supersedes",
		commits:  []commit{root, {"c1", 72 * time.Hour, staging("v1.8.2")}, {"c2", 25 * time.Hour, staging("v1.9.0")}},
		statuses: statuses{"c1": {"flux/staging": green}, "c2": {"flux/staging": green}},
		updates: []string{"promotion ghcr.io/acme/api v1.7.0 -> v1.9.0 env=production group= [envs/production/api.yaml:10]" +
			"\n  `v1.9.0` has been in **staging** since 2024-06-09 11:00 UTC (commit c2), longer than the soak of 24h." +
			"\n  Statuses on commit `c2`: `flux/staging` success."},
	}, {
		// Staging went back from v1.9.0 to v1.8.2: whatever soaked before,
		// nothing is promoted until a version soaks again.
		name: "rollback in staging withdraws",
		commits: []commit{root, {"c1", 96 * time.Hour, staging("v1.8.2")}, {"c2", 48 * time.Hour, staging("v1.9.0")},
			{"c3", time.Hour, staging("v1.8.2")}},
		statuses: statuses{"c1": {"flux/staging": green}, "c2": {"flux/staging": green}, "c3": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: staging moved ghcr.io/acme/api back from v1.9.0 to v1.8.2 on 2024-06-10 11:00 UTC (commit c3): the promotion is withdrawn until a version soaks again",
		},
	}, {
		name: "rolled-back version soaked again",
		commits: []commit{root, {"c1", 96 * time.Hour, staging("v1.8.2")}, {"c2", 48 * time.Hour, staging("v1.9.0")},
			{"c3", 25 * time.Hour, staging("v1.8.2")}},
		statuses: statuses{"c3": {"flux/staging": green}},
		updates: []string{"promotion ghcr.io/acme/api v1.7.0 -> v1.8.2 env=production group= [envs/production/api.yaml:10]" +
			"\n  `v1.8.2` has been in **staging** since 2024-06-09 11:00 UTC (commit c3), longer than the soak of 24h." +
			"\n  Statuses on commit `c3`: `flux/staging` success."},
	}, {
		name:     "production already there",
		commits:  []commit{root, {"c1", 72 * time.Hour, map[string]string{stagingFile: deploy("ghcr.io/acme/api:v1.8.2"), prodFile: deploy("ghcr.io/acme/api:v1.8.2")}}},
		statuses: statuses{"c1": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.8.2 promoted: at v1.8.2, the version that soaked in staging",
		},
	}, {
		name:     "never backwards",
		commits:  []commit{root, {"c1", 72 * time.Hour, map[string]string{prodFile: deploy("ghcr.io/acme/api:v2.0.0")}}},
		statuses: statuses{"c0": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v2.0.0 promoted: v1.7.0 soaked in staging, which is not newer than v2.0.0: a promotion never moves back (imagebot rollback does)",
		},
	}, {
		name:    "no soak, no status",
		config:  "environments:\n  - name: staging\n    paths: [\"envs/staging/**\"]\n  - name: production\n    paths: [\"envs/production/**\"]\n    promoteFrom: staging\n",
		commits: []commit{root, {"c1", time.Minute, staging("v1.8.2")}},
		updates: []string{"promotion ghcr.io/acme/api v1.7.0 -> v1.8.2 env=production group= [envs/production/api.yaml:10]" +
			"\n  `v1.8.2` has been in **staging** since 2024-06-10 11:59 UTC (commit c1)."},
	}, {
		name:     "staging lacks the image",
		commits:  []commit{root, {"c1", 72 * time.Hour, map[string]string{stagingFile: deploy("ghcr.io/acme/worker:build-9")}}},
		statuses: statuses{"c1": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: staging has no reference to ghcr.io/acme/api to promote",
		},
	}, {
		// The walk stops at its bound: v1.8.2 has held since before the
		// oldest commit looked at, but the commit whose statuses count is
		// further back.
		name: "history beyond the bound",
		commits: []commit{root, {"c1", 100 * time.Hour, staging("v1.8.2")}, {"c2", 50 * time.Hour, map[string]string{"a": "1"}},
			{"c3", 40 * time.Hour, map[string]string{stagingFile: deploy("ghcr.io/acme/api:v1.8.2") + "# touched\n"}}},
		limit:    1,
		statuses: statuses{"c1": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 promoted: v1.8.2 has been in staging since before 2024-06-08 20:00 UTC (the oldest of 2000 commits looked at): the commit that brought it is further back, so its statuses cannot be checked",
		},
	}, {
		// A policy's skip: true holds in production too.
		name:     "skipped image",
		config:   envConfig + "policies:\n  - match: ghcr.io/acme/api\n    skip: true\n",
		commits:  []commit{root, {"c1", 30 * time.Hour, staging("v1.8.2")}},
		statuses: statuses{"c1": {"flux/staging": green}},
		notices: []string{
			"envs/production/api.yaml:10 ghcr.io/acme/api:v1.7.0 skipped: skip: true",
			"envs/staging/api.yaml:10 ghcr.io/acme/api:v1.8.2 skipped: skip: true",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := parseConfig(t, firstNonEmpty(tc.config, envConfig))
			h := &history{commits: tc.commits, limit: tc.limit}
			refs := scanTip(t, h, cfg)
			p := basePlan(cfg, refs)
			err := rollout.Apply(t.Context(), p, refs, rollout.Options{
				Config: cfg, History: h, Statuses: tc.statuses, Registry: registry{}, Policy: defaultPolicy, Now: now, Tip: h.tipFS(),
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
			for _, pr := range p.Problems {
				t.Errorf("problem: %+v", pr)
			}
		})
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestPromoteLockstep: a lockstep group is promoted in one step, once
// every member has soaked one tag; until then, none is.
func TestPromoteLockstep(t *testing.T) {
	cfg := parseConfig(t, envConfig+"groups:\n  - name: kolla\n    match: [\"quay.io/kolla/**\"]\n    lockstep: true\n")
	both := func(nova, glance string) string {
		return deploy("quay.io/kolla/nova:"+nova, "quay.io/kolla/glance:"+glance)
	}
	base := commit{"c0", 240 * time.Hour, map[string]string{stagingFile: both("2024.1.0", "2024.1.0"), prodFile: both("2024.1.0", "2024.1.0")}}
	for _, tc := range []struct {
		name    string
		commits []commit
		moves   int
	}{
		{"half soaked", []commit{base, {"c1", 48 * time.Hour, map[string]string{stagingFile: both("2024.1.1", "2024.1.0")}},
			{"c2", time.Hour, map[string]string{stagingFile: both("2024.1.1", "2024.1.1")}}}, 0},
		{"all soaked", []commit{base, {"c1", 48 * time.Hour, map[string]string{stagingFile: both("2024.1.1", "2024.1.1")}}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{commits: tc.commits}
			refs := scanTip(t, h, cfg)
			p := basePlan(cfg, refs)
			green := statuses{"c1": {"flux/staging": "success"}, "c2": {"flux/staging": "success"}}
			if err := rollout.Apply(t.Context(), p, refs, rollout.Options{Config: cfg, History: h, Statuses: green, Policy: defaultPolicy, Now: now, Tip: h.tipFS()}); err != nil {
				t.Fatal(err)
			}
			if len(p.Updates) != tc.moves {
				t.Errorf("updates:\n%s\nnotices:\n%s", strings.Join(updateLines(p), "\n"), strings.Join(noticeLines(p), "\n"))
			}
			for _, u := range p.Updates {
				if u.Group != "kolla" || u.To != "2024.1.1" {
					t.Errorf("update %+v", u)
				}
			}
			if tc.moves == 0 {
				for _, n := range p.Notices {
					if !strings.Contains(n.Detail, "lockstep group kolla") {
						t.Errorf("notice %+v does not name the group", n)
					}
				}
			}
		})
	}
}
