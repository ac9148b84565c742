package job

import (
	"context"
	"time"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/plan"
)

// readDashboard finds the dashboard issue before the plan is made, and
// hands the plan what it records of first sightings (DESIGN.md "Release
// age"). nil when the config turns the dashboard off.
func readDashboard(ctx context.Context, e *engine, sess *gitops.Session) (*gitops.Dashboard, error) {
	if !e.cfg.DashboardOn() {
		return nil, nil
	}
	d, err := sess.Dashboard(ctx, e.cfg.DashboardTitle)
	if err != nil {
		return nil, err
	}
	e.firstSeen, e.seenSince = d.FirstSeen()
	return d, nil
}

// keepOptions adds to ro what the config says of limits, approval, the
// dashboard and onboarding: all of it in one place, for the job to carry.
// A repository without a config file and without a dashboard is offered
// the config init would write (converted from Renovate or Flux when they
// update it; repository is its owner/name, whose Renovate presets are
// followed), and nothing else.
func keepOptions(ctx context.Context, e *engine, d *gitops.Dashboard, ro *gitops.RunOptions, repository string, host gitops.Kind) error {
	cfg := e.cfg
	ro.MaxOpen, ro.PerHour, ro.PerRun = cfg.PullRequests.MaxOpen, cfg.PullRequests.PerHour, cfg.PullRequests.PerRun
	ro.Dashboard, ro.DashboardTitle = d, cfg.DashboardTitle
	ro.Approval = func(u plan.Update) bool { return pullRequestFor(cfg, u).Approval }
	if cfg.File != "" || !cfg.OnboardingOn() || (d != nil && d.Number != 0) {
		return nil
	}
	res, err := adopt.Onboard(ctx, e.fsys, adopt.Options{Registry: e.reg, Repository: repository,
		GitLab: host == gitops.GitLab, Azure: host == forge.Azure, Runner: runnerOn(host)})
	if err != nil {
		return err
	}
	ob := &gitops.Onboarding{Path: config.FileNames[0], Config: res.Config, Lead: res.Lead(), NoDashboard: d != nil && d.Off}
	if proposed, err := config.Check(ob.Path, res.Config); err == nil {
		ob.Scanned = proposed.Included // the preview shows what follows the merge
	}
	for _, n := range res.Notes {
		ob.Notes = append(ob.Notes, n.String())
	}
	ro.Onboarding = ob
	return nil
}

// runnerOn is the CI whose words the onboarding config speaks on host:
// GitHub Actions (whose GITHUB_TOKEN reads ghcr.io) only on GitHub; Gitea's
// Actions, Bitbucket Pipelines' secured variables, and on Bitbucket Data
// Center, which has no CI, the job's environment. GitLab's and Azure
// DevOps' are adopt.Options.GitLab and Azure.
func runnerOn(host gitops.Kind) string {
	switch host {
	case gitops.Gitea:
		return adopt.OnGitea
	case forge.Bitbucket:
		return adopt.OnBitbucket
	case forge.BitbucketServer:
		return adopt.OnNoCI
	}
	return adopt.OnGitHub
}

// updateFiles are the files an update changes.
func updateFiles(u plan.Update) []string {
	files := make([]string, 0, len(u.Locations))
	for _, l := range u.Locations {
		files = append(files, l.File)
	}
	return files
}

// firstSeenTimes is the engine's record of first sightings, for plan.Options.
type firstSeenTimes struct {
	firstSeen map[string]time.Time
	seenSince time.Time
}
