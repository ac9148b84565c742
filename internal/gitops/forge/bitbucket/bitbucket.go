package bitbucket

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// Kind is --forge bitbucket.
const Kind = forge.Bitbucket

// DefaultAPIURL is Bitbucket Cloud's API host; the API is under /2.0.
const DefaultAPIURL = "https://api.bitbucket.org"

// UsernameVariable holds the Atlassian account's e-mail that an API token
// authenticates with, which the program reads into forge.Config.User.
const UsernameVariable = "BITBUCKET_USERNAME"

// gitUser is the git user name for an API token, as Atlassian documents
// for git over HTTPS ("x-bitbucket-api-token-auth"), which spares the
// account's Bitbucket username, which the token's owner would otherwise
// have to look up.
const gitUser = "x-bitbucket-api-token-auth"

// cloud is Bitbucket Cloud as a Forge.
type cloud struct {
	api       *client
	ws, slug  string
	logLabels sync.Once
	cfg       forge.Config

	mu   sync.Mutex
	repo *bbRepo         // as Repository read it
	self *forge.Identity // once asked
}

var _ forge.Forge = (*cloud)(nil)

func init() { forge.Register(Kind, New) }

// New connects to workspace/slug (c.Repository) on Bitbucket Cloud at
// c.APIURL (DefaultAPIURL when empty; a trailing /2.0 is taken off), as
// the account whose e-mail is c.User with the API token c.Token.
func New(_ context.Context, c forge.Config) (forge.Forge, error) {
	c = c.WithDefaults()
	username := c.User
	ws, slug, err := forge.SplitRepository(c.Repository)
	if err != nil {
		return nil, err
	}
	if username == "" {
		//lint:ignore ST1005 it starts with the host's name
		return nil, fmt.Errorf("Bitbucket Cloud: %s is not set: an API token authenticates with the Atlassian account's e-mail", UsernameVariable)
	}
	api := strings.TrimSuffix(strings.TrimSuffix(c.APIURL, "/"), "/2.0")
	if api == "" {
		api = DefaultAPIURL
	}
	base, err := url.Parse(api + "/2.0")
	if err != nil || base.Host == "" || (base.Scheme != "http" && base.Scheme != "https") {
		//lint:ignore ST1005 it starts with the host's name
		return nil, fmt.Errorf("Bitbucket API URL %q: want such as %s", c.APIURL, DefaultAPIURL)
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = forge.RetryingClient(c.MaxWait, c.Clock, c.Logger, forge.APIGuard(api, c.URL))
	}
	return &cloud{api: &client{base: base, http: forge.APIClient(hc), user: username, token: forge.StaticToken(c.Token)},
		ws: ws, slug: slug, cfg: c}, nil
}

func (b *cloud) Name() string { return "Bitbucket" }

func (b *cloud) GitCredentials() (string, forge.Credentials) { return gitUser, b.api.token }

// repoPath is the repository's API path, with more segments after it.
func (b *cloud) repoPath(more ...string) string {
	return path(append([]string{"repositories", b.ws, b.slug}, more...)...)
}

type bbRepo struct {
	FullName   string `json:"full_name"`
	HasIssues  bool   `json:"has_issues"`
	MainBranch struct {
		Name string `json:"name"`
	} `json:"mainbranch"`
	Links links `json:"links"`
}

type links struct {
	HTML struct {
		Href string `json:"href"`
	} `json:"html"`
}

// bbUser is an account as Bitbucket shows it: no username since 2019.
type bbUser struct {
	AccountID string `json:"account_id"`
	UUID      string `json:"uuid"`
	Nickname  string `json:"nickname"`
}

// login is the account's ID, the one name of it that is stable and
// unique; a UUID where there is none (a workspace's app user).
func (u bbUser) login() string {
	if u.AccountID != "" {
		return u.AccountID
	}
	return u.UUID
}

// ref is how a request names the account a login is.
func ref(login string) map[string]string {
	if strings.HasPrefix(login, "{") {
		return map[string]string{"uuid": login}
	}
	return map[string]string{"account_id": login}
}

// field is the query field of a login: author.uuid or author.account_id.
func field(prefix, login string) string {
	if strings.HasPrefix(login, "{") {
		return prefix + ".uuid"
	}
	return prefix + ".account_id"
}

// Repository reads the repository's main branch, page and whether its
// issue tracker is on. Bitbucket's repository says nothing of the
// token's permissions (that would be one more request): Known is false.
func (b *cloud) Repository(ctx context.Context) (forge.Repository, error) {
	var r bbRepo
	if err := b.api.do(ctx, http.MethodGet, b.repoPath(), nil, nil, &r); err != nil {
		err = fmt.Errorf("get repository %s/%s: %w", b.ws, b.slug, err)
		if status(err) == http.StatusNotFound {
			return forge.Repository{}, fmt.Errorf("%w: %w", forge.ErrNoRepository, err)
		}
		return forge.Repository{}, err
	}
	b.mu.Lock()
	b.repo = &r
	b.mu.Unlock()
	return forge.Repository{DefaultBranch: r.MainBranch.Name, URL: r.Links.HTML.Href}, nil
}

// WhoAmI is the token's account (GET /2.0/user), asked once.
func (b *cloud) WhoAmI(ctx context.Context) (forge.Identity, error) {
	b.mu.Lock()
	self := b.self
	b.mu.Unlock()
	if self != nil {
		return *self, nil
	}
	var u bbUser
	if err := b.api.do(ctx, http.MethodGet, "user", nil, nil, &u); err != nil {
		return forge.Identity{}, fmt.Errorf("get the token's account, to know its pull requests: %w", err)
	}
	id := forge.Identity{Login: u.login()}
	b.mu.Lock()
	b.self = &id
	b.mu.Unlock()
	return id, nil
}

// BlobURL links a file's line at a commit: Bitbucket's /src/ pages, which
// anchor a line as #lines-12.
func (b *cloud) BlobURL(commit, file string, line int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.repo == nil || b.repo.Links.HTML.Href == "" {
		return ""
	}
	u := forge.BlobURL(strings.TrimSuffix(b.repo.Links.HTML.Href, "/")+"/src", commit, file, 0)
	if line > 0 {
		u += fmt.Sprintf("#lines-%d", line)
	}
	return u
}

func (b *cloud) DeleteBranch(ctx context.Context, branch string) error {
	if err := b.api.do(ctx, http.MethodDelete, b.repoPath("refs", "branches", branch), nil, nil, nil); err != nil {
		return fmt.Errorf("delete branch %s: %w", branch, err)
	}
	return nil
}

// Label does nothing: Bitbucket Cloud's pull requests have no labels.
// It says so once per run, at debug level, since every run would.
func (b *cloud) Label(_ context.Context, n int, labels []string) error {
	b.logLabels.Do(func() {
		b.cfg.Logger.Debug("Bitbucket Cloud has no pull request labels: not labelling", "pr", n, "labels", labels)
	})
	return nil
}

// EnableAutoMerge is not supported: Bitbucket Cloud has no auto-merge
// (merging when the checks pass) through its API or its pages.
func (b *cloud) EnableAutoMerge(_ context.Context, c *forge.Change) error {
	return fmt.Errorf("auto-merge of #%d: Bitbucket Cloud has no auto-merge: %w", c.Number, forge.ErrNotSupported)
}

// bbStatus is a commit's build status.
type bbStatus struct {
	Key   string `json:"key"`
	State string `json:"state"`
}

// statusWords are Bitbucket's build states in the words rollout reads.
var statusWords = map[string]string{"SUCCESSFUL": "success", "FAILED": "failure", "INPROGRESS": "pending", "STOPPED": "error"}

// addStatus records st in out, in rollout's words; a key reported twice
// counts as successful only if both are (Cloud and Data Center alike).
func addStatus(out map[string]string, st bbStatus) {
	word, ok := statusWords[st.State]
	if !ok {
		word = strings.ToLower(st.State)
	}
	if old, seen := out[st.Key]; !seen || old == "success" {
		out[st.Key] = word
	}
}

// Statuses is each build status's state on ref, by key (Bitbucket keeps
// one per key and commit, its newest), a page of 100 at a time.
func (b *cloud) Statuses(ctx context.Context, ref string) (map[string]string, error) {
	out := map[string]string{}
	err := b.api.list(ctx, "statuses of "+ref, b.repoPath("commit", ref, "statuses"), nil, 100, forge.StatusPages,
		func(raw []byte) (bool, error) {
			var st bbStatus
			if err := json.Unmarshal(raw, &st); err != nil {
				return false, err
			}
			addStatus(out, st)
			return true, nil
		})
	if err != nil {
		return nil, err
	}
	return out, nil
}
