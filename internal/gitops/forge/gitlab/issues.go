package gitlab

import (
	"context"
	"fmt"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// FindIssue lists creator's issues, open and closed, oldest first, a page
// of 100 at a time, for forge.IssuePages at most. GitLab lists issues apart
// from merge requests; a project with issues turned off, as its GET said,
// is ErrIssuesOff without a request.
func (l *lab) FindIssue(ctx context.Context, creator string, pick func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	if l.issuesOff {
		return nil, forge.ErrIssuesOff
	}
	opts := &gitlab.ListProjectIssuesOptions{AuthorUsername: &creator, OrderBy: gitlab.Ptr("created_at"), Sort: gitlab.Ptr("asc"),
		ListOptions: gitlab.ListOptions{PerPage: gitlabPerPage}}
	var found *forge.Issue
	err := forge.Pages("list issues by "+creator, forge.IssuePages, func(page int) (int, error) {
		opts.Page = int64(page)
		issues, resp, err := l.gl.Issues.ListProjectIssues(l.project, opts, gitlab.WithContext(ctx))
		if err != nil {
			return 0, fmt.Errorf("list issues by %s: %w", creator, glErr(err))
		}
		var list []*forge.Issue
		for _, is := range issues {
			list = append(list, fromGitLabIssue(is))
		}
		if found = pick(list); found != nil {
			return 0, nil
		}
		return int(resp.NextPage), nil
	})
	return found, err
}

func fromGitLabIssue(is *gitlab.Issue) *forge.Issue {
	out := &forge.Issue{Number: int(is.IID), URL: is.WebURL, Title: is.Title, Body: is.Description, Labels: is.Labels}
	if is.Author != nil {
		out.Author = is.Author.Username
	}
	if is.CreatedAt != nil {
		out.Created = *is.CreatedAt
	}
	return out
}

func (l *lab) CreateIssue(ctx context.Context, title, body string, labels []string) (*forge.Issue, error) {
	ls := gitlab.LabelOptions(labels)
	is, _, err := l.gl.Issues.CreateIssue(l.project, &gitlab.CreateIssueOptions{Title: &title, Description: &body, Labels: &ls}, gitlab.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("open issue %q: %w", title, glErr(err))
	}
	return fromGitLabIssue(is), nil
}

func (l *lab) EditIssue(ctx context.Context, n int, body string) error {
	if _, _, err := l.gl.Issues.UpdateIssue(l.project, int64(n), &gitlab.UpdateIssueOptions{Description: &body}, gitlab.WithContext(ctx)); err != nil {
		return fmt.Errorf("edit issue #%d: %w", n, glErr(err))
	}
	return nil
}

// gitlabStates are GitLab's job, commit status and pipeline states in
// GitHub's words, which rollout.Statuses reads: only "success" passes.
var gitlabStates = map[string]string{
	"success":  "success",
	"failed":   "failure",
	"canceled": "error", "canceling": "error", "skipped": "error",
	"created": "pending", "waiting_for_resource": "pending", "preparing": "pending", "pending": "pending",
	"running": "pending", "scheduled": "pending", "manual": "pending", "waiting_for_callback": "pending",
}

// Statuses is the state of every check on ref: its commit statuses, which
// on GitLab are both the statuses others post (Flux's notification
// controller) and the jobs of its pipelines, each name's latest; and, as
// "pipeline", the state of its newest pipeline. A name reported twice
// counts as successful only if both are.
func (l *lab) Statuses(ctx context.Context, ref string) (map[string]string, error) {
	out := map[string]string{}
	set := func(name, state string) {
		s, ok := gitlabStates[state]
		if !ok {
			s = state
		}
		if prev, ok := out[name]; !ok || prev == "success" {
			out[name] = s
		}
	}
	opts := &gitlab.GetCommitStatusesOptions{ListOptions: gitlab.ListOptions{PerPage: gitlabPerPage}}
	err := forge.Pages("statuses of "+ref, forge.StatusPages, func(page int) (int, error) {
		opts.Page = int64(page)
		sts, resp, err := l.gl.Commits.GetCommitStatuses(l.project, ref, opts, gitlab.WithContext(ctx))
		if err != nil {
			return 0, fmt.Errorf("statuses of %s: %w", ref, glErr(err))
		}
		for _, st := range sts {
			set(st.Name, st.Status)
		}
		return int(resp.NextPage), nil
	})
	if err != nil {
		return nil, err
	}
	pipes, _, err := l.gl.Pipelines.ListProjectPipelines(l.project, &gitlab.ListProjectPipelinesOptions{
		SHA: &ref, OrderBy: gitlab.Ptr("id"), Sort: gitlab.Ptr("desc"), ListOptions: gitlab.ListOptions{PerPage: 1},
	}, gitlab.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("pipelines of %s: %w", ref, glErr(err))
	}
	if len(pipes) > 0 {
		set("pipeline", pipes[0].Status)
	}
	return out, nil
}
