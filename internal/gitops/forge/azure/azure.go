package azure

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Kind is the driver's --forge name (forge.Azure).
const Kind = forge.Azure

// ado is an Azure DevOps repository as a Forge.
type ado struct {
	c             *client
	project, repo string
	identitiesURL string // where identities are looked up
	repoPath      string // /{project}/_apis/git/repositories/{repo}

	mu   sync.Mutex
	web  string // the repository's web page, once read
	self *self
}

// self is who the token acts as: its identity ID (what searchCriteria and
// autoCompleteSetBy take) and unique name (its login).
type self struct{ id, login string }

var _ forge.Forge = (*ado)(nil)

func init() {
	forge.Register(Kind, New)
	// serve clones before any repository is opened: it asks for this first.
	forge.RegisterGitSetup(Kind, AllowMultiACK)
}

// gitUser is the git user name: Azure Repos ignores it when the password
// is a PAT or a job token.
const gitUser = "imagebot"

// New connects to the repository o.Repository ("Project/repo") of the
// collection at o.APIURL ("https://dev.azure.com/org", or Server's
// "https://host/tfs/DefaultCollection").
func New(_ context.Context, o forge.Config) (forge.Forge, error) {
	return newADO(o)
}

func newADO(o forge.Config) (*ado, error) {
	AllowMultiACK()
	o = o.WithDefaults()
	project, repo, err := forge.SplitRepository(o.Repository)
	if err != nil {
		return nil, fmt.Errorf("azure devops: %w (Project/repository)", err)
	}
	base := strings.TrimSuffix(o.APIURL, "/")
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || strings.Trim(u.Path, "/") == "" {
		return nil, fmt.Errorf("azure devops organization URL %q: want https://dev.azure.com/ORG or a Server collection's URL", o.APIURL)
	}
	identities := base
	if strings.EqualFold(u.Host, "dev.azure.com") {
		// Services serves identities from its own host.
		identities = "https://vssps.dev.azure.com" + u.Path
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = forge.RetryingClient(o.MaxWait, o.Clock, o.Logger, forge.APIGuard(base, o.URL))
	}
	return &ado{c: &client{base: base, hc: forge.APIClient(hc), token: forge.StaticToken(o.Token), clock: o.Clock},
		project: project, repo: repo, identitiesURL: identities,
		repoPath: "/" + seg(project) + "/_apis/git/repositories/" + seg(repo)}, nil
}

func (a *ado) Name() string { return "Azure DevOps" }

func (a *ado) GitCredentials() (string, forge.Credentials) { return gitUser, a.c.token }

func (a *ado) Repository(ctx context.Context) (forge.Repository, error) {
	var r struct {
		DefaultBranch string `json:"defaultBranch"`
		WebURL        string `json:"webUrl"`
		IsDisabled    bool   `json:"isDisabled"`
	}
	if _, err := a.c.do(ctx, "GET", a.c.base, a.repoPath, nil, nil, &r); err != nil {
		if status(err) == 404 {
			err = fmt.Errorf("%w: %w", forge.ErrNoRepository, err)
		}
		return forge.Repository{}, fmt.Errorf("get repository %s/%s: %w", a.project, a.repo, err)
	}
	if r.IsDisabled {
		return forge.Repository{}, fmt.Errorf("repository %s/%s is disabled", a.project, a.repo)
	}
	a.mu.Lock()
	a.web = r.WebURL
	a.mu.Unlock()
	// Azure DevOps does not say what the token may do to a repository.
	return forge.Repository{DefaultBranch: strings.TrimPrefix(r.DefaultBranch, "refs/heads/"), URL: r.WebURL}, nil
}

// WhoAmI is the token's identity (connectionData), asked once per run.
func (a *ado) WhoAmI(ctx context.Context) (forge.Identity, error) {
	me, err := a.whoami(ctx)
	if err != nil {
		return forge.Identity{}, err
	}
	return forge.Identity{Login: me.login}, nil
}

func (a *ado) whoami(ctx context.Context) (self, error) {
	a.mu.Lock()
	me := a.self
	a.mu.Unlock()
	if me != nil {
		return *me, nil
	}
	var cd struct {
		AuthenticatedUser identity `json:"authenticatedUser"`
	}
	if _, err := a.c.do(ctx, "GET", a.c.base, "/_apis/connectionData", nil, nil, &cd); err != nil {
		return self{}, fmt.Errorf("get the token's identity, to know its pull requests: %w", err)
	}
	me = &self{id: cd.AuthenticatedUser.ID, login: cd.AuthenticatedUser.login()}
	a.mu.Lock()
	a.self = me
	a.mu.Unlock()
	return *me, nil
}

// identity is an identity as connectionData and the identities API give it.
type identity struct {
	ID                  string `json:"id"`
	ProviderDisplayName string `json:"providerDisplayName"`
	Properties          struct {
		Account struct {
			Value string `json:"$value"`
		} `json:"Account"`
	} `json:"properties"`
}

// login is the identity's sign-in name, what pull requests call its
// uniqueName; its display name when it has none.
func (i identity) login() string {
	if i.Properties.Account.Value != "" {
		return i.Properties.Account.Value
	}
	return i.ProviderDisplayName
}

// BlobURL links a file's line at a commit: Azure Repos' ?path=&version=GC
// pages, a line as line/lineEnd.
func (a *ado) BlobURL(commit, file string, line int) string {
	a.mu.Lock()
	web := a.web
	a.mu.Unlock()
	if web == "" {
		return ""
	}
	q := url.Values{"path": {"/" + file}, "version": {"GC" + commit}, "_a": {"contents"}}
	if line > 0 {
		n := strconv.Itoa(line)
		q.Set("line", n)
		q.Set("lineEnd", n)
		q.Set("lineStartColumn", "1")
		q.Set("lineEndColumn", "1")
		q.Set("lineStyle", "plain")
	}
	return web + "?" + q.Encode()
}

// FindIssue: the dashboard is off on Azure DevOps (see the package doc).
func (a *ado) FindIssue(context.Context, string, func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	return nil, fmt.Errorf("azure devops: %w", forge.ErrNoIssueTracker)
}

func (a *ado) CreateIssue(context.Context, string, string, []string) (*forge.Issue, error) {
	return nil, fmt.Errorf("azure devops: %w", forge.ErrNoIssueTracker)
}

func (a *ado) EditIssue(context.Context, int, string) error {
	return fmt.Errorf("azure devops: %w", forge.ErrNoIssueTracker)
}
