package job

import (
	"context"
	"regexp"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
)

// groupsOf tells the plan each image's config group.
func groupsOf(cfg *config.Config) func(string) plan.Group {
	return func(img string) plan.Group {
		if g := cfg.GroupFor(img); g != nil {
			return plan.Group{Name: g.Name, Lockstep: g.Lockstep}
		}
		return plan.Group{}
	}
}

// promotedOf tells the plan which files are promoted into from another
// environment.
func promotedOf(cfg *config.Config) func(string) (string, string) {
	return func(file string) (string, string) {
		if e := cfg.EnvironmentFor(file); e != nil && e.PromoteFrom != "" {
			return e.Name, e.PromoteFrom
		}
		return "", ""
	}
}

// applyRollouts completes a run's plan with what the default branch's
// history and statuses decide: promotions, and pre-pulls before rollouts.
func applyRollouts(ctx context.Context, e *engine, sess *gitops.Session, p *plan.Plan, refs []scan.Ref, version string) error {
	if len(e.cfg.Environments) == 0 && e.cfg.Prepull == nil {
		return nil
	}
	return rollout.Apply(ctx, p, refs, rollout.Options{
		Config: e.cfg, History: sess, Statuses: sess, Tip: sess.FS(),
		Registry: e.reg, Policy: orderOf(e), Now: time.Now(), Helper: helperImage(version), Logger: e.log,
	})
}

// orderOf is the policy a rollout orders an image's versions by: the one
// of files that no policy with paths scopes, since a promotion compares
// versions of an image rather than of a reference.
func orderOf(e *engine) func(string) (*policy.Policy, error) {
	pols := e.policies()
	return func(image string) (*policy.Policy, error) { return pols(image, "") }
}

// releaseVersion is a version as a release sets it (1.2.3 or v1.2.3).
var releaseVersion = regexp.MustCompile(`^v?(\d+\.\d+\.\d+)$`)

// helperImage is the imagebot image whose static binary the pre-pull
// DaemonSet runs in every image it pulls: this release's, or the first
// release for builds that are none.
func helperImage(version string) string {
	if m := releaseVersion.FindStringSubmatch(version); m != nil {
		return "ghcr.io/imagebot/imagebot:v" + m[1]
	}
	return "ghcr.io/imagebot/imagebot:v0.1.0"
}
