package githubtest

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"
)

// TestIssues: issues share numbers with pull requests, list with them
// (filtered by creator and labels, paged), refuse a body over GitHub's
// limit, and are gone (410) when the repository turns them off.
func TestIssues(t *testing.T) {
	e := setup(t, []Option{WithPerPage(2)})
	mine, _, err := e.gh.Issues.Create(e.ctx, "acme", "apps", &github.IssueRequest{Title: github.String("dash"), Body: github.String("x"), Labels: &[]string{"imagebot"}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := e.fake.OpenIssue("acme", "apps", "octocat", "t", strings.Repeat("y", i)); err != nil {
			t.Fatal(err)
		}
	}
	if mine.GetNumber() != 1 || mine.GetUser().GetLogin() != botLogin {
		t.Errorf("created #%d by %s", mine.GetNumber(), mine.GetUser().GetLogin())
	}
	var all []*github.Issue
	opts := &github.IssueListByRepoOptions{State: "all", ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := e.gh.Issues.ListByRepo(e.ctx, "acme", "apps", opts)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(all) != 4 || all[0].GetNumber() != 4 {
		t.Errorf("listed %d issues, first #%d; want 4, newest first", len(all), all[0].GetNumber())
	}
	got, _, err := e.gh.Issues.ListByRepo(e.ctx, "acme", "apps", &github.IssueListByRepoOptions{Creator: botLogin, Labels: []string{"IMAGEBOT"}})
	if err != nil || len(got) != 1 || got[0].GetNumber() != 1 {
		t.Errorf("by creator and label: %v, %v", got, err)
	}
	long := strings.Repeat("é", maxBody+1)
	_, _, err = e.gh.Issues.Edit(e.ctx, "acme", "apps", 1, &github.IssueRequest{Body: &long})
	if status(err) != http.StatusUnprocessableEntity {
		t.Errorf("a body over the limit: %v", err)
	}
	closed := "closed"
	if ed, _, err := e.gh.Issues.Edit(e.ctx, "acme", "apps", 1, &github.IssueRequest{State: &closed, Title: github.String("renamed")}); err != nil || ed.GetState() != "closed" || ed.GetTitle() != "renamed" {
		t.Errorf("edit: %v, %v", ed, err)
	}

	off := setup(t, nil, WithIssuesDisabled())
	if _, _, err := off.gh.Issues.ListByRepo(off.ctx, "acme", "apps", nil); status(err) != http.StatusGone {
		t.Errorf("issues disabled: %v", err)
	}
}

func status(err error) int {
	if er, ok := err.(*github.ErrorResponse); ok && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
