package job

import (
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/plan"
)

// describePullRequests says for each update of p what its pull request
// carries, so that plan's outputs and run's dry run show what run opens.
func describePullRequests(cfg *config.Config, p *plan.Plan) {
	for i := range p.Updates {
		pr := pullRequestFor(cfg, p.Updates[i])
		p.Updates[i].PullRequest = &pr
		if m := p.Updates[i].Minor; m != nil {
			mpr := pullRequestFor(cfg, *m)
			m.PullRequest = &mpr
		}
	}
}

// pullRequestFor is what the policies give u's pull request: the one
// computation behind what the outputs show and what the PR gets.
func pullRequestFor(cfg *config.Config, u plan.Update) plan.PullRequest {
	pr := cfg.ForUpdate(u.Image, updateFiles(u), u.Type)
	return plan.PullRequest{Labels: pr.Labels, Reviewers: pr.Reviewers, Automerge: pr.Automerge, Approval: pr.Approval}
}
