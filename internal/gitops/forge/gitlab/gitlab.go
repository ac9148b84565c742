package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	gitlab "gitlab.com/gitlab-org/api/client-go/v2"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/secret"
)

// lab is GitLab, gitlab.com or a self-managed instance at any URL, as a
// Forge: merge requests through GitLab's client-go, authenticated with a
// project or group access token (PRIVATE-TOKEN; git's user "oauth2").
type lab struct {
	gl      *gitlab.Client
	project string // the project's full path, "group/sub/name": GitLab takes it for the numeric ID
	token   forge.StaticToken
	clock   forge.Clock
	log     *slog.Logger

	// self is who the token acts as, once asked (see WhoAmI).
	self *forge.Identity
	// webURL is the project's page, and issuesOff says it has issues
	// turned off: both from the project GET that Open makes anyway.
	webURL    string
	issuesOff bool
	// drafts are the merge requests the last listing found in draft:
	// GitLab keeps draft in the title ("Draft: "), which a retitle must
	// keep.
	drafts map[int]bool
}

var _ forge.Forge = (*lab)(nil)

// gitlabAPI is gitlab.com's API, when Options.APIURL is "".
const gitlabAPI = "https://gitlab.com"

// gitlabDraft makes a merge request a draft: GitLab reads it off the
// title.
const gitlabDraft = "Draft: "

func (l *lab) Name() string { return "GitLab" }

// GitCredentials: GitLab takes an access token over https as the password
// of any user name; "oauth2" is the one its docs give.
func (l *lab) GitCredentials() (string, forge.Credentials) { return "oauth2", l.token }

// noLimit stops client-go from pacing requests by RateLimit-Limit in the
// wall clock's time: a run waits out GitLab's 429s in its own clock
// (forge.RetryingClient), as it does GitHub's.
type noLimit struct{}

func (noLimit) Wait(context.Context) error { return nil }

func init() {
	forge.Register(forge.GitLab, New)
	forge.RegisterGroups(forge.GitLab, GroupProjects)
}

// New connects to o.APIURL (the instance's URL, with or without
// /api/v4; gitlab.com when empty) with o.Token, for the project
// o.Repository.
func New(_ context.Context, o forge.Config) (forge.Forge, error) {
	return newLab(o)
}

func newLab(o forge.Config) (*lab, error) {
	if strings.Trim(o.Repository, "/") == "" || !strings.Contains(o.Repository, "/") {
		return nil, fmt.Errorf("GitLab project %q: want its full path, group/name", o.Repository)
	}
	gl, err := gitlabClient(o)
	if err != nil {
		return nil, err
	}
	return &lab{gl: gl, project: strings.Trim(o.Repository, "/"), token: forge.StaticToken(o.Token), clock: o.Clock, log: o.Logger, drafts: map[int]bool{}}, nil
}

// gitlabClient is client-go on o.APIURL (gitlab.com when empty) with
// o.Token. The retrying client (forge.RetryingClient) does the retries, so
// client-go's own are off.
func gitlabClient(o forge.Config) (*gitlab.Client, error) {
	api := strings.TrimSuffix(o.APIURL, "/")
	if api == "" {
		api = gitlabAPI
	}
	if u, err := url.Parse(api); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("GitLab URL %q: want the instance's URL, such as https://gitlab.example.com", o.APIURL)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = forge.RetryingClient(o.MaxWait, o.Clock, o.Logger, forge.APIGuard(api, o.URL))
	}
	gl, err := gitlab.NewClient(o.Token, gitlab.WithBaseURL(api), gitlab.WithHTTPClient(forge.APIClient(hc)),
		gitlab.WithoutRetries(), gitlab.WithCustomLimiter(noLimit{}),
		gitlab.WithURLWarningLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, fmt.Errorf("GitLab client for %s: %w", api, err)
	}
	return gl, nil
}

// glErr is err as the lifecycle reads it: GitLab's 429 (beyond what the
// retrying client waited) becomes a *RateLimitError, any other refusal a
// *forge.HTTPError with GitLab's message. client-go's errors
// quote the method, URL and GitLab's message, which apiClient scrubbed of
// the token; what looks like a credential is scrubbed again here.
func glErr(err error) error {
	err = secret.Error(err)
	if glStatus(err) == http.StatusTooManyRequests {
		return &forge.RateLimitError{Err: err}
	}
	var er *gitlab.ErrorResponse
	if errors.As(err, &er) && er.StatusCode != 0 {
		return &forge.HTTPError{Status: er.StatusCode, Message: gitlabMessage(er), Err: err}
	}
	return err
}

// gitlabMessage is what GitLab said in a refusal's body: its "message",
// or its OAuth "error" (insufficient_scope, invalid_token) with the
// description; "" for none.
func gitlabMessage(er *gitlab.ErrorResponse) string {
	var body struct {
		Message     any    `json:"message"`
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	if json.Unmarshal(er.Body, &body) != nil {
		return ""
	}
	if m, ok := body.Message.(string); ok && m != "" {
		return m
	}
	if body.Error != "" {
		return strings.TrimSuffix(strings.TrimSpace(body.Error+": "+body.Description), ":")
	}
	return ""
}

// glStatus is the HTTP status of a GitLab refusal, 0 for other errors.
func glStatus(err error) int {
	var er *gitlab.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode
	}
	return 0
}

// Repository is one GET of the project: its default branch, web page,
// whether issues are on, and whether the token may push (Developer or
// above, by the project's or its group's membership).
func (l *lab) Repository(ctx context.Context) (forge.Repository, error) {
	p, _, err := l.gl.Projects.GetProject(l.project, nil, gitlab.WithContext(ctx))
	if errors.Is(err, gitlab.ErrNotFound) {
		return forge.Repository{}, fmt.Errorf("get GitLab project %s: %w (404)", l.project, forge.ErrNoRepository)
	}
	if err != nil {
		return forge.Repository{}, fmt.Errorf("get GitLab project %s: %w", l.project, glErr(err))
	}
	l.webURL = strings.TrimSuffix(p.WebURL, "/")
	//lint:ignore SA1019 GitLab before 16.x answers issues_enabled alone
	l.issuesOff = !p.IssuesEnabled && (p.IssuesAccessLevel == "" || p.IssuesAccessLevel == gitlab.DisabledAccessControl)
	r := forge.Repository{DefaultBranch: p.DefaultBranch, URL: l.webURL}
	if perm := p.Permissions; perm != nil {
		level := gitlab.NoPermissions
		if perm.ProjectAccess != nil {
			level = perm.ProjectAccess.AccessLevel
		}
		if perm.GroupAccess != nil && perm.GroupAccess.AccessLevel > level {
			level = perm.GroupAccess.AccessLevel
		}
		r.Push, r.Known = level >= gitlab.DeveloperPermissions, true
	}
	return r, nil
}

// WhoAmI is the token's user (GET /user), asked once: a project or group
// access token acts as its bot user, "project_<id>_bot_<hash>".
func (l *lab) WhoAmI(ctx context.Context) (forge.Identity, error) {
	if l.self != nil {
		return *l.self, nil
	}
	u, _, err := l.gl.Users.CurrentUser(gitlab.WithContext(ctx))
	if err != nil {
		return forge.Identity{}, fmt.Errorf("get the token's GitLab user, to know its merge requests: %w", glErr(err))
	}
	l.self = &forge.Identity{Login: u.Username}
	return *l.self, nil
}

// BlobURL links a file's line on a commit: GitLab's /-/blob/ pages.
func (l *lab) BlobURL(commit, file string, line int) string {
	if l.webURL == "" {
		return ""
	}
	return forge.BlobURL(l.webURL+"/-/blob", commit, file, line)
}

func (l *lab) DeleteBranch(ctx context.Context, branch string) error {
	if _, err := l.gl.Branches.DeleteBranch(l.project, branch, gitlab.WithContext(ctx)); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, glErr(err))
	}
	return nil
}
