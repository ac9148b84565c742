package gitea

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"code.gitea.io/sdk/gitea"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// tea is Gitea, and Forgejo (its fork, with the same API), as a Forge,
// through the Gitea SDK. The SDK takes no context per call: each call
// gets a client of its own bound to the call's context (client), which
// costs no request, as the server's version is not asked (see client).
type tea struct {
	server      string       // the server's root URL; the SDK adds /api/v1
	http        *http.Client // retrying; the token is added by the SDK
	owner, name string
	token       forge.StaticToken

	mu sync.Mutex
	// repo is the repository as Repository read it: its page, default
	// branch and whether it has issues.
	repo *gitea.Repository
	// self is who the token acts as, once asked.
	self *forge.Identity
	// labels are the repository's labels by name, once listed: Gitea
	// labels pull requests by ID.
	labels map[string]int64
	// wip is the draft prefix ("WIP: ") of each draft pull request read,
	// by number: Gitea's drafts are a title prefix, which the lifecycle
	// never sees and an edit of the title keeps.
	wip map[int]string
}

var _ forge.Forge = (*tea)(nil)

// giteaUser is the git user name: Gitea and Forgejo ignore it when the
// password is an access token (services/auth/basic.go), so asking the
// server who the token is, a request per run, would buy nothing.
const giteaUser = "imagebot"

func (g *tea) Name() string { return "Gitea" }

func (g *tea) GitCredentials() (string, forge.Credentials) { return giteaUser, g.token }

func init() { forge.Register(forge.Gitea, New) }

// New connects to the Gitea or Forgejo server at o.APIURL (its root,
// "https://gitea.example.com"; a trailing /api/v1 is taken off).
func New(_ context.Context, o forge.Config) (forge.Forge, error) {
	return newTea(o)
}

func newTea(o forge.Config) (*tea, error) {
	owner, name, err := forge.SplitRepository(o.Repository)
	if err != nil {
		return nil, err
	}
	server := strings.TrimSuffix(strings.TrimSuffix(o.APIURL, "/"), "/api/v1")
	if u, err := url.Parse(server); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		//lint:ignore ST1005 it starts with the host's name
		return nil, fmt.Errorf("Gitea server URL %q: want the server's root, such as https://gitea.example.com", o.APIURL)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = forge.RetryingClient(o.MaxWait, o.Clock, o.Logger, forge.APIGuard(server, o.URL))
	}
	return &tea{server: server, http: forge.APIClient(hc), owner: owner, name: name, token: forge.StaticToken(o.Token), wip: map[int]string{}}, nil
}

// client is the SDK bound to ctx. SetGiteaVersion("") keeps the SDK from
// asking GET /api/v1/version first, on creation and before some calls:
// a request per run for features every supported server has (1.17 and
// later: merge_when_checks_succeed; Forgejo 1.18 and later).
func (g *tea) client(ctx context.Context) *gitea.Client {
	c, _ := gitea.NewClient(g.server, gitea.SetHTTPClient(g.http), gitea.SetToken(string(g.token)),
		gitea.SetContext(ctx), gitea.SetGiteaVersion(""), gitea.SetUserAgent("imagebot"))
	return c
}

// teaErr is err as the lifecycle reads it: a *forge.HTTPError with the
// answer's status (the SDK keeps only the message), and a
// 429 (a proxy's, or Forgejo's rate limiter; Gitea has none of its own)
// beyond the wait the retrying client allows as a *RateLimitError. The
// token is scrubbed, should a transport error quote a URL with it.
func (g *tea) teaErr(resp *gitea.Response, err error) error {
	if err == nil {
		return nil
	}
	err = g.token.Scrub(err)
	if resp == nil || resp.Response == nil {
		return err
	}
	ge := &forge.HTTPError{Status: resp.StatusCode, Message: err.Error(), Err: fmt.Errorf("%w (HTTP %d)", err, resp.StatusCode)}
	if resp.StatusCode == http.StatusTooManyRequests {
		return &forge.RateLimitError{Err: ge}
	}
	return ge
}

// teaStatus is the HTTP status of a Gitea refusal, 0 for none.
func teaStatus(err error) int {
	var ge *forge.HTTPError
	if errors.As(err, &ge) {
		return ge.Status
	}
	return 0
}

func (g *tea) Repository(ctx context.Context) (forge.Repository, error) {
	r, resp, err := g.client(ctx).GetRepo(g.owner, g.name)
	if err != nil {
		return forge.Repository{}, fmt.Errorf("get repository %s/%s: %w", g.owner, g.name, g.teaErr(resp, err))
	}
	g.mu.Lock()
	g.repo = r
	g.mu.Unlock()
	out := forge.Repository{DefaultBranch: r.DefaultBranch, URL: r.HTMLURL}
	if r.Permissions != nil {
		out.Push, out.Known = r.Permissions.Push, true
	}
	return out, nil
}

// WhoAmI is the token's user (GET /user), asked once per run and only
// when the bot's work must be told from others'.
func (g *tea) WhoAmI(ctx context.Context) (forge.Identity, error) {
	g.mu.Lock()
	self := g.self
	g.mu.Unlock()
	if self != nil {
		return *self, nil
	}
	u, resp, err := g.client(ctx).GetMyUserInfo()
	if err != nil {
		return forge.Identity{}, fmt.Errorf("get the token's user, to know its pull requests: %w", g.teaErr(resp, err))
	}
	id := forge.Identity{Login: u.UserName}
	g.mu.Lock()
	g.self = &id
	g.mu.Unlock()
	return id, nil
}

// BlobURL links a file's line at a commit: Gitea's /src/commit/ pages.
func (g *tea) BlobURL(commit, file string, line int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.repo == nil || g.repo.HTMLURL == "" {
		return ""
	}
	return forge.BlobURL(strings.TrimSuffix(g.repo.HTMLURL, "/")+"/src/commit", commit, file, line)
}

func (g *tea) DeleteBranch(ctx context.Context, branch string) error {
	if _, resp, err := g.client(ctx).DeleteRepoBranch(g.owner, g.name, branch); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, g.teaErr(resp, err))
	}
	return nil
}

func (g *tea) Comment(ctx context.Context, n int, text string) error {
	if _, resp, err := g.client(ctx).CreateIssueComment(g.owner, g.name, int64(n), gitea.CreateIssueCommentOption{Body: text}); err != nil {
		return fmt.Errorf("comment on #%d: %w", n, g.teaErr(resp, err))
	}
	return nil
}

// Commented reports whether a comment of the bot's on the PR contains
// mark, paging through its comments.
func (g *tea) Commented(ctx context.Context, n int, mark string, by func(login string) bool) (bool, error) {
	c := g.client(ctx)
	opts := gitea.ListIssueCommentOptions{ListOptions: gitea.ListOptions{Page: 1, PageSize: giteaPerPage}}
	found := false
	err := forge.Pages(fmt.Sprintf("list comments of #%d", n), maxGiteaPages, func(page int) (int, error) {
		opts.Page = page
		cs, resp, err := c.ListIssueComments(g.owner, g.name, int64(n), opts)
		if err != nil {
			return 0, fmt.Errorf("list comments of #%d: %w", n, g.teaErr(resp, err))
		}
		for _, cm := range cs {
			if cm.Poster != nil && strings.Contains(cm.Body, mark) && by(cm.Poster.UserName) {
				found = true
				return 0, nil
			}
		}
		return resp.NextPage, nil
	})
	return found, err
}
