package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/secret"
)

// hub is GitHub, and GitHub Enterprise Server, as a Forge: go-github for
// REST, one GraphQL mutation for auto-merge, and the Git Data API for
// signed commits (SignedCommits, github_gitdata.go).
type hub struct {
	gh          *github.Client
	http        *http.Client // authenticated, for GraphQL
	graphqlURL  string
	owner, name string
	creds       forge.Credentials

	// self is who the run acts as, once asked (see WhoAmI).
	self *forge.Identity
	// htmlURL is the repository's page ("https://github.com/o/r"), from
	// the repository GET that Open makes anyway.
	htmlURL string
}

var (
	_ forge.Forge         = (*hub)(nil)
	_ forge.SignedCommits = (*hub)(nil)
)

func (h *hub) Name() string { return "GitHub" }

func (h *hub) GitCredentials() (string, forge.Credentials) { return "x-access-token", h.creds }

// ghErr is err as the lifecycle reads it: GitHub's rate limits, as
// go-github reports each kind, become a *RateLimitError. Primary limits
// are a *github.RateLimitError (also when go-github refuses locally until
// the reset it remembers), secondary 403s an *AbuseRateLimitError, and a
// 429 a plain *ErrorResponse. Any other refusal is a *forge.HTTPError with
// GitHub's message, which job reads without go-github.
func ghErr(err error) error {
	err = secret.Error(err)
	var primary *github.RateLimitError
	var secondary *github.AbuseRateLimitError
	var other *github.ErrorResponse
	if errors.As(err, &primary) || errors.As(err, &secondary) ||
		(errors.As(err, &other) && other.Response != nil && other.Response.StatusCode == http.StatusTooManyRequests) {
		return &forge.RateLimitError{Err: err}
	}
	if errors.As(err, &other) && other.Response != nil {
		return &forge.HTTPError{Status: other.Response.StatusCode, Message: other.Message, Err: err}
	}
	return err
}

// WhoAmI is the bot's login, asked once per run. An App is "<slug>[bot]"
// (one request, with its JWT); a person's token is its user (GET /user);
// an installation token, which GET /user refuses, is taken for
// GITHUB_TOKEN's github-actions[bot], Assumed. An installation token is
// known by its "ghs_" prefix, which GitHub documents, and is not asked
// at all: GET /user would only refuse it, a request per run for nothing.
func (h *hub) WhoAmI(ctx context.Context) (forge.Identity, error) {
	if h.self != nil {
		return *h.self, nil
	}
	var id forge.Identity
	if t, ok := h.creds.(forge.StaticToken); ok && strings.HasPrefix(string(t), installationTokenPrefix) {
		id = forge.Identity{Login: actionsBot, Assumed: true}
	} else if app, ok := h.creds.(*appCredentials); ok {
		a, _, err := app.asApp().Apps.Get(ctx, "")
		if err != nil {
			return forge.Identity{}, fmt.Errorf("get the GitHub App, to know its pull requests: %w", ghErr(err))
		}
		id.Login = a.GetSlug() + "[bot]"
	} else {
		u, _, err := h.gh.Users.Get(ctx, "")
		switch {
		case status(err) == http.StatusForbidden:
			id = forge.Identity{Login: actionsBot, Assumed: true}
		case err != nil:
			return forge.Identity{}, fmt.Errorf("get the token's user, to know its pull requests: %w", ghErr(err))
		default:
			id.Login = u.GetLogin()
		}
	}
	h.self = &id
	return id, nil
}

// installationTokenPrefix starts every GitHub App installation token,
// GITHUB_TOKEN's included (GitHub's token formats: ghp_ a person's, ghs_
// an installation's).
const installationTokenPrefix = "ghs_"

// ownBranch reports whether pr's head branch is in the repository itself,
// not in a fork: only writers can push there.
func ownBranch(pr *github.PullRequest) bool {
	head, base := pr.GetHead().GetRepo().GetFullName(), pr.GetBase().GetRepo().GetFullName()
	return head != "" && strings.EqualFold(head, base)
}

// fromPull is a pull request as the lifecycle reads it.
func fromPull(pr *github.PullRequest) *forge.Change {
	c := &forge.Change{
		Number: pr.GetNumber(), ID: pr.GetNodeID(), URL: pr.GetHTMLURL(),
		Title: pr.GetTitle(), Body: pr.GetBody(), Author: pr.GetUser().GetLogin(),
		Head: pr.GetHead().GetRef(), OwnBranch: ownBranch(pr), Base: pr.GetBase().GetRef(),
		State: pr.GetState(), Merged: pr.MergedAt != nil, Created: pr.GetCreatedAt().Time,
	}
	for _, l := range pr.Labels {
		c.Labels = append(c.Labels, l.GetName())
	}
	return c
}

func init() {
	forge.Register(forge.GitHub, func(ctx context.Context, c forge.Config) (forge.Forge, error) { return newGitHub(ctx, c) })
	forge.RegisterAppTokens(appTokens)
}

// newGitHub connects to the API as o says: with o.App's installation
// tokens when set (o.Token then goes unused, and the log says so), else
// with o.Token. An App's installation is found and its first token fetched
// here.
func newGitHub(ctx context.Context, o forge.Config) (*hub, error) {
	owner, name, err := forge.SplitRepository(o.Repository)
	if err != nil {
		return nil, err
	}
	api := apiRoot(o.APIURL)
	apiURL, err := url.Parse(api + "/")
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", o.APIURL, err)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = forge.RetryingClient(o.MaxWait, o.Clock, o.Logger, forge.APIGuard(api, o.URL))
	}
	// Below the credentials, so that it sees them (secret.Transport).
	base := secret.Transport(hc.Transport)
	var creds forge.Credentials = forge.StaticToken(o.Token)
	if o.App != nil {
		if o.Token != "" {
			o.Logger.Info("both GITHUB_TOKEN and a GitHub App are set: authenticating as the App", "app", o.App.ID())
		}
		c, err := newAppCredentials(ctx, o, base, api, owner, name)
		if err != nil {
			return nil, err
		}
		creds = c
	}
	authed := &http.Client{Transport: &authTransport{creds: creds, base: base}, Timeout: hc.Timeout, CheckRedirect: secret.CheckRedirect}
	gh := github.NewClient(authed)
	gh.BaseURL = apiURL
	// GitHub Enterprise serves GraphQL at /api/graphql beside /api/v3.
	gql := api + "/graphql"
	if s, ok := strings.CutSuffix(api, "/api/v3"); ok {
		gql = s + "/api/graphql"
	}
	return &hub{gh: gh, http: authed, graphqlURL: gql, owner: owner, name: name, creds: creds}, nil
}

// apiRoot is the API's URL without a trailing slash; "" is github.com's.
func apiRoot(apiURL string) string {
	if api := strings.TrimSuffix(apiURL, "/"); api != "" {
		return api
	}
	return "https://api.github.com"
}

func (h *hub) Repository(ctx context.Context) (forge.Repository, error) {
	r, _, err := h.gh.Repositories.Get(ctx, h.owner, h.name)
	if err != nil {
		err = ghErr(err)
		var he *forge.HTTPError
		if errors.As(err, &he) && he.Status == http.StatusNotFound {
			he.Of = forge.ErrNoRepository
		}
		return forge.Repository{}, fmt.Errorf("get repository %s/%s: %w", h.owner, h.name, err)
	}
	h.htmlURL = r.GetHTMLURL()
	push, known := r.GetPermissions()["push"]
	return forge.Repository{DefaultBranch: r.GetDefaultBranch(), URL: h.htmlURL, Push: push, Known: known}, nil
}

// BlobURL links a file's line on a commit.
func (h *hub) BlobURL(commit, file string, line int) string {
	if h.htmlURL == "" {
		return ""
	}
	return forge.BlobURL(h.htmlURL+"/blob", commit, file, line)
}

// CreateChange opens a PR. A 422 because one is already open for the
// branch (an earlier run raced us, or the listing was stale) returns that
// PR instead.
func (h *hub) CreateChange(ctx context.Context, c forge.NewChange) (*forge.Change, bool, error) {
	created, _, err := h.gh.PullRequests.Create(ctx, h.owner, h.name, &github.NewPullRequest{
		Title: &c.Title, Body: &c.Body, Head: &c.Head, Base: &c.Base, Draft: &c.Draft,
	})
	if err == nil {
		return fromPull(created), true, nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(er.Error()), "already exists") {
		// Whoever opened it: the lifecycle tells the bot's from others'.
		open, lerr := h.Changes(ctx, forge.Query{State: "open", Head: c.Head, Base: c.Base})
		if lerr == nil && len(open) > 0 {
			return open[0], false, nil
		}
	}
	return nil, false, fmt.Errorf("open pull request for %s: %w", c.Head, ghErr(err))
}

func (h *hub) EditChange(ctx context.Context, n int, e forge.ChangeEdit) error {
	change := &github.PullRequest{Title: e.Title, Body: e.Body}
	if e.Close {
		change.State = github.String("closed")
	}
	if _, _, err := h.gh.PullRequests.Edit(ctx, h.owner, h.name, n, change); err != nil {
		return fmt.Errorf("edit pull request #%d: %w", n, ghErr(err))
	}
	return nil
}

func (h *hub) Comment(ctx context.Context, n int, text string) error {
	if _, _, err := h.gh.Issues.CreateComment(ctx, h.owner, h.name, n, &github.IssueComment{Body: &text}); err != nil {
		return fmt.Errorf("comment on #%d: %w", n, ghErr(err))
	}
	return nil
}

// Commented reports whether a comment of the bot's (by reports whose
// login is) on the PR contains mark, so that a rerun does not say the same
// thing twice; the same words from anyone else do not count.
func (h *hub) Commented(ctx context.Context, n int, mark string, by func(login string) bool) (bool, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: perPage}}
	found := false
	err := forge.Pages(fmt.Sprintf("list comments of #%d", n), 0, func(page int) (int, error) {
		opts.Page = page
		cs, resp, err := h.gh.Issues.ListComments(ctx, h.owner, h.name, n, opts)
		if err != nil {
			return 0, fmt.Errorf("list comments of #%d: %w", n, ghErr(err))
		}
		for _, c := range cs {
			if strings.Contains(c.GetBody(), mark) && by(c.GetUser().GetLogin()) {
				found = true
				return 0, nil
			}
		}
		return resp.NextPage, nil
	})
	return found, err
}

func (h *hub) Label(ctx context.Context, n int, labels []string) error {
	if _, _, err := h.gh.Issues.AddLabelsToIssue(ctx, h.owner, h.name, n, labels); err != nil {
		return fmt.Errorf("label #%d: %w", n, ghErr(err))
	}
	return nil
}

// RequestReviewers asks users, and the owner's teams ("owner/team").
func (h *hub) RequestReviewers(ctx context.Context, n int, reviewers []string) error {
	users, teams := forge.SplitReviewers(h.owner, reviewers)
	if _, _, err := h.gh.PullRequests.RequestReviewers(ctx, h.owner, h.name, n, github.ReviewersRequest{Reviewers: users, TeamReviewers: teams}); err != nil {
		return fmt.Errorf("request reviewers on #%d: %w", n, ghErr(err))
	}
	return nil
}

func (h *hub) DeleteBranch(ctx context.Context, branch string) error {
	if _, err := h.gh.Git.DeleteRef(ctx, h.owner, h.name, "heads/"+branch); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, ghErr(err))
	}
	return nil
}

// EnableAutoMerge asks GitHub to merge the PR once its checks pass. It
// has no REST endpoint; the GraphQL mutation is the only way.
func (h *hub) EnableAutoMerge(ctx context.Context, c *forge.Change) error {
	q := map[string]any{
		"query":     `mutation($id: ID!) { enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: SQUASH}) { clientMutationId } }`,
		"variables": map[string]any{"id": c.ID},
	}
	b, _ := json.Marshal(q)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.graphqlURL, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.http.Do(req)
	if err != nil {
		return fmt.Errorf("enable auto-merge: %w", h.creds.Scrub(err))
	}
	defer resp.Body.Close()
	var out struct {
		Errors []struct{ Message string } `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		return fmt.Errorf("enable auto-merge: HTTP %d", resp.StatusCode)
	}
	if len(out.Errors) > 0 {
		return fmt.Errorf("enable auto-merge: %s", out.Errors[0].Message)
	}
	return nil
}

// FindIssue lists creator's issues, oldest first, a page of 100 at a
// time, for forge.IssuePages at most. GitHub lists PRs as issues too: they
// are left out. A 410 is a repository with issues turned off.
func (h *hub) FindIssue(ctx context.Context, creator string, pick func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	opts := &github.IssueListByRepoOptions{Creator: creator, State: "all", Sort: "created", Direction: "asc",
		ListOptions: github.ListOptions{PerPage: perPage}}
	var found *forge.Issue
	err := forge.Pages("list issues by "+creator, forge.IssuePages, func(page int) (int, error) {
		opts.Page = page
		issues, resp, err := h.gh.Issues.ListByRepo(ctx, h.owner, h.name, opts)
		if status(err) == http.StatusGone {
			return 0, forge.ErrIssuesOff
		}
		if err != nil {
			return 0, ghErr(err)
		}
		var list []*forge.Issue
		for _, is := range issues {
			if !is.IsPullRequest() {
				list = append(list, fromIssue(is))
			}
		}
		if found = pick(list); found != nil {
			return 0, nil
		}
		return resp.NextPage, nil
	})
	return found, err
}

func fromIssue(is *github.Issue) *forge.Issue {
	out := &forge.Issue{Number: is.GetNumber(), URL: is.GetHTMLURL(), Title: is.GetTitle(), Body: is.GetBody(),
		Author: is.GetUser().GetLogin(), Created: is.GetCreatedAt().Time}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.GetName())
	}
	return out
}

func (h *hub) CreateIssue(ctx context.Context, title, body string, labels []string) (*forge.Issue, error) {
	is, _, err := h.gh.Issues.Create(ctx, h.owner, h.name, &github.IssueRequest{Title: &title, Body: &body, Labels: &labels})
	if err != nil {
		return nil, ghErr(err)
	}
	return fromIssue(is), nil
}

func (h *hub) EditIssue(ctx context.Context, n int, body string) error {
	_, _, err := h.gh.Issues.Edit(ctx, h.owner, h.name, n, &github.IssueRequest{Body: &body})
	return ghErr(err)
}

func status(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}
