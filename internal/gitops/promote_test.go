package gitops_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/timefmt"
)

const (
	api         = "ghcr.io/acme/api"
	stagingAPI  = "envs/staging/api.yaml"
	prodAPI     = "envs/production/api.yaml"
	promoBranch = "imagebot/promote-production-ghcr.io-acme-api"
)

var envFiles = map[string][]byte{
	stagingAPI: []byte(deployment(api + ":v1.7.0")),
	prodAPI:    []byte(deployment(api + ":v1.7.0")),
}

// The registry has v1.9.0 and v2.0.0: staging stays on its versions by
// policy, so that the test is about promotion, not about staging's own
// updates (which are as usual).
const envsConfig = `policies:
  - match: ghcr.io/acme/api
    allow: patch
environments:
  - name: staging
    paths: ["envs/staging/**"]
  - name: production
    paths: ["envs/production/**"]
    promoteFrom: staging
    soak: 24h
    requireStatus: ["flux/staging", "e2e"]
`

// TestPromotion: production gets exactly the version that has been in
// staging for the soak, from the commit that brought it, once every
// required status (a Flux commit status, a CI check run) is successful on
// that commit; never the registry's newest. A newer version in staging
// supersedes the PR once it has soaked itself; a rollback in staging
// withdraws it.
func TestPromotion(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(envFiles))
		w.configure(t, envsConfig)
		staging := func(tag string) map[string]string { return map[string]string{stagingAPI: deployment(api + ":" + tag)} }

		// v1.8.2 reached staging 30 hours ago; Flux reported a failure there.
		s1 := w.commitAt(t, 30*time.Hour, "staging: api v1.8.2", staging("v1.8.2"))
		w.postStatus(t, s1, "flux/staging", "failure")
		w.postCheck(t, s1, "e2e", "success")
		res := w.rolloutRun(t)
		if len(res.Opened) != 0 {
			t.Fatalf("opened %v while flux/staging failed", res.Opened)
		}
		contains(t, "notices", strings.Join(w.noticesOf("promoted"), "\n"),
			api+":v1.7.0 v1.8.2 has been in staging since", "but `flux/staging` is failure, `e2e` success")

		// Flux reports success on the same commit: the promotion opens.
		w.postStatus(t, s1, "flux/staging", "success")
		res = w.rolloutRun(t)
		if !slices.Equal(res.Opened, []string{promoBranch}) {
			t.Fatalf("opened %v, want %s", res.Opened, promoBranch)
		}
		pr := w.openPRs()[promoBranch]
		since := timefmt.Stamp(w.clock.Now().Add(-30 * time.Hour))
		if pr.Title != "Promote ghcr.io/acme/api v1.8.2 to production" {
			t.Errorf("title %q", pr.Title)
		}
		contains(t, "PR body", pr.Body,
			"promotes to **production** what has soaked in the environment before it",
			"- `v1.8.2` has been in **staging** since "+since+" (commit "+s1[:12]+"), longer than the soak of 24h.",
			"- Statuses on commit `"+s1[:12]+"`: `flux/staging` success, `e2e` success.",
			"| `envs/production/api.yaml:10` | `v1.7.0` | `v1.8.2` | minor |",
			`"kind":"promotion"`, `"env":"production"`)
		if got := changedFiles(t, w.mainTip(t), w.commit(t, promoBranch)); !slices.Equal(got, []string{prodAPI}) {
			t.Errorf("the promotion changes %v", got)
		}

		// A rerun at the same moment writes nothing.
		before := w.counters()
		w.rolloutRun(t)
		if after := w.counters(); after != before {
			t.Errorf("rerun wrote: %+v -> %+v", before, after)
		}

		// v1.9.0 reaches staging (green): until it soaks, v1.8.2 stays
		// proposed, and the PR says what comes next.
		s2 := w.commitAt(t, time.Hour, "staging: api v1.9.0", staging("v1.9.0"))
		w.postStatus(t, s2, "flux/staging", "success")
		w.postCheck(t, s2, "e2e", "success")
		w.rolloutRun(t)
		pr = w.openPRs()[promoBranch]
		if pr.Title != "Promote ghcr.io/acme/api v1.8.2 to production" || !strings.Contains(pr.Body, "Note: v1.9.0 has been in staging since") {
			t.Errorf("while v1.9.0 soaks: %q\n%s", pr.Title, pr.Body)
		}

		// A day later v1.9.0 has soaked: the same PR moves to it.
		w.advance(24 * time.Hour)
		res = w.rolloutRun(t)
		pr2 := w.openPRs()[promoBranch]
		if !slices.Equal(res.Updated, []string{promoBranch}) || pr2.Number != pr.Number || pr2.Title != "Promote ghcr.io/acme/api v1.9.0 to production" {
			t.Errorf("after v1.9.0 soaked: result %+v, PR #%d %q", res, pr2.Number, pr2.Title)
		}

		// Staging rolls back to v1.8.2: the promotion is withdrawn.
		w.commitAt(t, 0, "staging: back to api v1.8.2", staging("v1.8.2"))
		res = w.rolloutRun(t)
		if !slices.Equal(res.Closed, []string{promoBranch}) || len(w.openPRs()) != 0 {
			t.Fatalf("after the rollback in staging: result %+v, open %v", res, w.openPRs())
		}
		closed := w.prs()[promoBranch]
		contains(t, "closing comment", strings.Join(closed.Comments, "\n"), "withdraws this promotion")
		contains(t, "notices", strings.Join(w.noticesOf("promoted"), "\n"), "staging moved ghcr.io/acme/api back from v1.9.0 to v1.8.2")
	})
}

// TestPromotionMerged: once the promotion is merged, production has
// staging's version and nothing more is proposed, whatever the registry
// has; the PR's change was exactly staging's version.
func TestPromotionMerged(t *testing.T) {
	t.Parallel()
	eachHost(t, func(t *testing.T, on worldOption) {
		w := newWorld(t, on, withFiles(envFiles))
		w.configure(t, strings.Replace(envsConfig, `, "e2e"]`, `]`, 1))
		s1 := w.commitAt(t, 48*time.Hour, "staging: api v1.8.2", map[string]string{stagingAPI: deployment(api + ":v1.8.2")})
		w.postStatus(t, s1, "flux/staging", "success")
		w.rolloutRun(t)
		pr := w.openPRs()[promoBranch]
		if err := w.host.merge(pr.Number); err != nil {
			t.Fatal(err)
		}
		if got := w.mainFile(t, prodAPI); !strings.Contains(got, api+":v1.8.2\n") {
			t.Errorf("production after the merge:\n%s", got)
		}
		res := w.rolloutRun(t)
		if len(res.Opened)+len(res.Updated) != 0 || len(w.openPRs()) != 0 {
			t.Errorf("after the merge: result %+v", res)
		}
	})
}
