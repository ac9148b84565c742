package gitops_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
	gitlab "gitlab.com/gitlab-org/api/client-go/v2"
)

// gitlabHost is GitLab's fake, internal/testing/gitlabtest, driven by
// client-go as the real GitLab is; its merge requests are the world's
// PRs.
type gitlabHost struct{ *gitlabtest.Server }

// project is the world's repository as a GitLab project path.
const project = owner + "/" + name

func startGitLab(t *testing.T, w *world, wc *worldConfig) host {
	// jane is a person on the instance, whom configs name as a reviewer.
	opts := []gitlabtest.Option{gitlabtest.WithToken(token), gitlabtest.WithClock(w.clock.Now),
		gitlabtest.WithUser("jane", "glpat-jane", gitlabtest.Developer)}
	if wc.perPage > 0 {
		opts = append(opts, gitlabtest.WithPerPage(wc.perPage))
	}
	var popts []gitlabtest.ProjectOption
	if wc.issuesOff {
		popts = append(popts, gitlabtest.WithIssuesDisabled())
	}
	gl := gitlabtest.New(opts...)
	t.Cleanup(gl.Close)
	gl.AddProject(project, main_, githubtest.BareRepos(w.gs.Dir), popts...)
	return gitlabHost{gl}
}

func (h gitlabHost) kind() gitops.Kind { return gitops.GitLab }
func (h gitlabHost) apiURL() string    { return h.URL() }
func (h gitlabHost) bot() string       { return gitlabtest.DefaultBot }
func (h gitlabHost) requests() int     { return h.Requests() }
func (h gitlabHost) writes() int       { return h.Writes() }

// changes are the merge requests as hostPRs: "opened" is open, "merged"
// closed and merged, and a draft is its title's prefix.
func (h gitlabHost) changes() []hostPR {
	var out []hostPR
	for _, mr := range h.MRs(project) {
		pr := hostPR{Number: mr.IID, Author: mr.Author, Title: mr.Title, Body: mr.Description, Head: mr.Source, Base: mr.Target,
			State: "closed", Merged: mr.State == "merged", Draft: mr.Draft, AutoMerge: mr.AutoMerge,
			Labels: mr.Labels, Reviewers: mr.Reviewers, Comments: mr.Notes, HeadSHA: mr.SHA}
		if mr.State == "opened" {
			pr.State = "open"
		}
		if mr.FromFork {
			pr.HeadRepo = "fork/" + name
		}
		out = append(out, pr)
	}
	return out
}

func (h gitlabHost) openAs(login, head, base, title, body string, fork bool) (int, error) {
	if base == "" {
		base = main_
	}
	return h.OpenMR(project, login, head, base, title, body, fork)
}

func (h gitlabHost) close(n int) error { return h.CloseMR(project, n) }
func (h gitlabHost) merge(n int) error { return h.MergeMR(project, n) }

// postStatus posts a commit status, as Flux's notification-controller
// does on GitLab.
func (h gitlabHost) postStatus(sha, context, state string) error {
	return h.post(sha, context, state)
}

// postCheck is a pipeline whose one job ended so.
func (h gitlabHost) postCheck(sha, name, conclusion string) error {
	if conclusion == "failure" {
		conclusion = "failed"
	}
	return h.AddPipeline(project, sha, map[string]string{name: conclusion})
}

func (h gitlabHost) issues() []hostIssue {
	var out []hostIssue
	for _, is := range h.Issues(project) {
		state := "open"
		if is.State == "closed" {
			state = "closed"
		}
		out = append(out, hostIssue{Number: is.IID, Author: is.Author, Title: is.Title, Body: is.Description, State: state, Labels: is.Labels})
	}
	return out
}

func (h gitlabHost) openIssue(login, title, body string) (int, error) {
	return h.OpenIssue(project, login, title, body)
}

func (h gitlabHost) editIssue(n int, title string, body *string) error {
	return h.EditIssue(project, n, title, body)
}

// post posts a commit status through client-go, in GitHub's words
// ("failure", "error") turned into GitLab's.
func (h gitlabHost) post(sha, context, state string) error {
	switch state {
	case "failure", "error":
		state = "failed"
	}
	c, err := gitlab.NewClient(token, gitlab.WithBaseURL(h.URL()))
	if err != nil {
		return err
	}
	_, _, err = c.Commits.SetCommitStatus(project, sha, &gitlab.SetCommitStatusOptions{State: gitlab.BuildStateValue(state), Name: &context})
	return err
}

// noOpRequests: the project, who the bot is (GET /user: the listing is
// by its author), and a page of up to 100 of its open merge requests
// (GitLab's largest page).
func (h gitlabHost) noOpRequests(open int) int { return 2 + max((open+99)/100, 1) }
func (h gitlabHost) whoAmI() int               { return 1 }

// caps: GitLab has no team reviewers.
func (h gitlabHost) caps() hostCaps { c := full; c.teamReviewers = false; return c }
