package gitops

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
)

// hub is the slice of the GitHub API a run uses.
type hub struct {
	gh          *github.Client
	http        *http.Client // authenticated, for GraphQL
	graphqlURL  string
	owner, name string
	creds       credentials

	// self is who the run acts as, once asked (see whoAmI).
	self *identity
	// htmlURL is the repository's page ("https://github.com/o/r"), from
	// the repository GET that Open makes anyway.
	htmlURL string
}

// identity is the login the bot's PRs and comments are made as. Assumed
// is true when GitHub would not say (an installation token cannot ask who
// it is) and GITHUB_TOKEN's github-actions[bot] is taken.
type identity struct {
	login   string
	assumed bool
}

// whoAmI is the bot's login, asked once per run and only by a run that
// must tell the bot's PRs and comments from others' (a closed PR to read,
// a comment to look for): a rerun with nothing to do never asks. An App
// is "<slug>[bot]" (one request, with its JWT); a person's token is its
// user (GET /user); an installation token, which GET /user refuses, is
// taken for GITHUB_TOKEN's github-actions[bot].
func (h *hub) whoAmI(ctx context.Context) (identity, error) {
	if h.self != nil {
		return *h.self, nil
	}
	var id identity
	if app, ok := h.creds.(*appCredentials); ok {
		a, _, err := app.asApp().Apps.Get(ctx, "")
		if err != nil {
			return identity{}, fmt.Errorf("get the GitHub App, to know its pull requests: %w", err)
		}
		id.login = a.GetSlug() + "[bot]"
	} else {
		u, _, err := h.gh.Users.Get(ctx, "")
		switch {
		case status(err) == http.StatusForbidden:
			id = identity{login: actionsBot, assumed: true}
		case err != nil:
			return identity{}, fmt.Errorf("get the token's user, to know its pull requests: %w", err)
		default:
			id.login = u.GetLogin()
		}
	}
	h.self = &id
	return id, nil
}

// ownBranch reports whether pr's head branch is in the repository itself,
// not in a fork: only writers can push there.
func ownBranch(pr *github.PullRequest) bool {
	head, base := pr.GetHead().GetRepo().GetFullName(), pr.GetBase().GetRepo().GetFullName()
	return head != "" && strings.EqualFold(head, base)
}

// newHub connects to the API as o says: with o.App's installation tokens
// when set (o.Token then goes unused, and the log says so), else with
// o.Token. An App's installation is found and its first token fetched here.
func newHub(ctx context.Context, o Options) (*hub, error) {
	owner, name, err := splitRepository(o.Repository)
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
		hc = retryingClient(o.MaxWait, o.Clock, o.Logger)
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	var creds credentials = staticToken(o.Token)
	if o.App != nil {
		if o.Token != "" {
			o.Logger.Info("both GITHUB_TOKEN and a GitHub App are set: authenticating as the App", "app", o.App.id)
		}
		c, err := newAppCredentials(ctx, o, base, api, owner, name)
		if err != nil {
			return nil, err
		}
		creds = c
	}
	authed := &http.Client{Transport: &authTransport{creds: creds, base: base}, Timeout: hc.Timeout}
	gh := github.NewClient(authed)
	gh.BaseURL = apiURL
	// GitHub Enterprise serves GraphQL at /api/graphql beside /api/v3.
	gql := api + "/graphql"
	if s, ok := strings.CutSuffix(api, "/api/v3"); ok {
		gql = s + "/api/graphql"
	}
	return &hub{gh: gh, http: authed, graphqlURL: gql, owner: owner, name: name, creds: creds}, nil
}

// splitRepository splits "owner/name".
func splitRepository(repository string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || name == "" {
		return "", "", fmt.Errorf("repository %q: want owner/name", repository)
	}
	return owner, name, nil
}

// apiRoot is the API's URL without a trailing slash; "" is github.com's.
func apiRoot(apiURL string) string {
	if api := strings.TrimSuffix(apiURL, "/"); api != "" {
		return api
	}
	return "https://api.github.com"
}

func (h *hub) defaultBranch(ctx context.Context) (string, error) {
	r, _, err := h.gh.Repositories.Get(ctx, h.owner, h.name)
	if err != nil {
		return "", fmt.Errorf("get repository %s/%s: %w", h.owner, h.name, err)
	}
	h.htmlURL = r.GetHTMLURL()
	return r.GetDefaultBranch(), nil
}

// create opens a PR. A 422 because one is already open for the branch (an
// earlier run raced us, or the listing was stale) returns that PR instead.
func (h *hub) create(ctx context.Context, pr *github.NewPullRequest) (*github.PullRequest, bool, error) {
	created, _, err := h.gh.PullRequests.Create(ctx, h.owner, h.name, pr)
	if err == nil {
		return created, true, nil
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusUnprocessableEntity &&
		strings.Contains(strings.ToLower(er.Error()), "already exists") {
		open, lerr := h.pulls(ctx, "open", pr.GetHead())
		if lerr == nil && len(open) > 0 {
			return open[0], false, nil
		}
	}
	return nil, false, fmt.Errorf("open pull request for %s: %w", pr.GetHead(), err)
}

func (h *hub) edit(ctx context.Context, n int, change *github.PullRequest) error {
	if _, _, err := h.gh.PullRequests.Edit(ctx, h.owner, h.name, n, change); err != nil {
		return fmt.Errorf("edit pull request #%d: %w", n, err)
	}
	return nil
}

func (h *hub) comment(ctx context.Context, n int, text string) error {
	if _, _, err := h.gh.Issues.CreateComment(ctx, h.owner, h.name, n, &github.IssueComment{Body: &text}); err != nil {
		return fmt.Errorf("comment on #%d: %w", n, err)
	}
	return nil
}

// commented reports whether a comment of the bot's (by reports whose
// login is) on the PR contains mark, so that a rerun does not say the same
// thing twice; the same words from anyone else do not count.
func (h *hub) commented(ctx context.Context, n int, mark string, by func(login string) bool) (bool, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		cs, resp, err := h.gh.Issues.ListComments(ctx, h.owner, h.name, n, opts)
		if err != nil {
			return false, fmt.Errorf("list comments of #%d: %w", n, err)
		}
		for _, c := range cs {
			if strings.Contains(c.GetBody(), mark) && by(c.GetUser().GetLogin()) {
				return true, nil
			}
		}
		if resp.NextPage == 0 {
			return false, nil
		}
		opts.Page = resp.NextPage
	}
}

func (h *hub) decorate(ctx context.Context, n int, m Meta) error {
	if len(m.Labels) > 0 {
		if _, _, err := h.gh.Issues.AddLabelsToIssue(ctx, h.owner, h.name, n, m.Labels); err != nil {
			return fmt.Errorf("label #%d: %w", n, err)
		}
	}
	if len(m.Reviewers) > 0 {
		var users, teams []string
		for _, r := range m.Reviewers {
			if t, ok := strings.CutPrefix(r, h.owner+"/"); ok {
				teams = append(teams, t)
			} else {
				users = append(users, r)
			}
		}
		if _, _, err := h.gh.PullRequests.RequestReviewers(ctx, h.owner, h.name, n, github.ReviewersRequest{Reviewers: users, TeamReviewers: teams}); err != nil {
			return fmt.Errorf("request reviewers on #%d: %w", n, err)
		}
	}
	return nil
}

func (h *hub) deleteBranch(ctx context.Context, branch string) error {
	if _, err := h.gh.Git.DeleteRef(ctx, h.owner, h.name, "heads/"+branch); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// autoMerge asks GitHub to merge the PR once its checks pass. It has no
// REST endpoint; the GraphQL mutation is the only way.
func (h *hub) autoMerge(ctx context.Context, nodeID string) error {
	q := map[string]any{
		"query":     `mutation($id: ID!) { enablePullRequestAutoMerge(input: {pullRequestId: $id, mergeMethod: SQUASH}) { clientMutationId } }`,
		"variables": map[string]any{"id": nodeID},
	}
	b, _ := json.Marshal(q)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.graphqlURL, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := h.http.Do(req)
	if err != nil {
		return fmt.Errorf("enable auto-merge: %w", h.creds.scrub(err))
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
