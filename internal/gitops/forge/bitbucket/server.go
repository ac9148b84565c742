package bitbucket

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// ServerKind is --forge bitbucket-server: Bitbucket Data Center (once
// Server), REST API 1.0, at any URL.
const ServerKind = forge.BitbucketServer

// dcPage is the page of pull requests asked of Data Center
// (page.max.pullrequests is 1000 by default; 100 keeps answers small).
const dcPage = 100

// server is Bitbucket Data Center as a Forge. It has no issue tracker:
// the dashboard is off (forge.ErrIssuesOff), which a run reports in one
// line. Labels do not exist; auto-merge (8.15 and later) does.
type server struct {
	api           *client
	project, slug string
	cfg           forge.Config
	mu            sync.Mutex
	page          string      // the repository's web page
	self          string      // X-AUSERNAME, as the first answer said
	versions      map[int]int // each pull request's version, as last read
}

var _ forge.Forge = (*server)(nil)

func init() { forge.Register(ServerKind, NewServer) }

// NewServer connects to PROJECT/slug (c.Repository) on the Data Center at
// c.APIURL (its root, at any path: https://example.com/bitbucket), with the
// HTTP access token c.Token as Bearer.
func NewServer(_ context.Context, c forge.Config) (forge.Forge, error) {
	c = c.WithDefaults()
	project, slug, err := forge.SplitRepository(c.Repository)
	if err != nil {
		return nil, err
	}
	root := strings.TrimSuffix(strings.TrimSuffix(c.APIURL, "/"), "/rest/api/1.0")
	base, err := url.Parse(root + "/rest")
	if err != nil || base.Host == "" || (base.Scheme != "http" && base.Scheme != "https") {
		//lint:ignore ST1005 it starts with the host's name
		return nil, fmt.Errorf("Bitbucket Data Center URL %q: want the server's root, such as https://bitbucket.example.com", c.APIURL)
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = forge.RetryingClient(c.MaxWait, c.Clock, c.Logger, forge.APIGuard(root, c.URL))
	}
	s := &server{project: project, slug: slug, cfg: c, versions: map[int]int{}}
	s.api = &client{base: base, http: forge.APIClient(hc), token: forge.StaticToken(c.Token), header: s.sawHeader}
	return s, nil
}

// sawHeader keeps who the token is: Data Center names the authenticated
// user in X-AUSERNAME on every answer, which spares WhoAmI a request.
func (s *server) sawHeader(h http.Header) {
	if u := h.Get("X-AUSERNAME"); u != "" {
		s.mu.Lock()
		s.self = u
		s.mu.Unlock()
	}
}

func (s *server) Name() string { return "Bitbucket Data Center" }

// GitCredentials: Data Center takes a personal HTTP access token as git's
// password with its user's name, which the first answer named
// (X-AUSERNAME; the lifecycle reads the repository before git). A project
// or repository token is Bearer-only for git as for the API (Atlassian:
// "don't use this token with a username in Basic authentication"), which
// the lifecycle's git does not send yet: such tokens serve the API only.
func (s *server) GitCredentials() (string, forge.Credentials) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cmpOr(s.self, "x-token-auth"), s.api.token
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *server) repoPath(more ...string) string {
	return path(append([]string{"api", "1.0", "projects", s.project, "repos", s.slug}, more...)...)
}

// Repository reads the repository and its default branch: 2 requests.
func (s *server) Repository(ctx context.Context) (forge.Repository, error) {
	var r struct {
		Links struct {
			Self []struct {
				Href string `json:"href"`
			} `json:"self"`
		} `json:"links"`
	}
	if err := s.api.do(ctx, http.MethodGet, s.repoPath(), nil, nil, &r); err != nil {
		err = fmt.Errorf("get repository %s/%s: %w", s.project, s.slug, err)
		if status(err) == http.StatusNotFound {
			return forge.Repository{}, fmt.Errorf("%w: %w", forge.ErrNoRepository, err)
		}
		return forge.Repository{}, err
	}
	var b struct {
		DisplayID string `json:"displayId"`
	}
	if err := s.api.do(ctx, http.MethodGet, s.repoPath("default-branch"), nil, nil, &b); err != nil {
		return forge.Repository{}, fmt.Errorf("get the default branch of %s/%s: %w", s.project, s.slug, err)
	}
	out := forge.Repository{DefaultBranch: b.DisplayID}
	if len(r.Links.Self) > 0 {
		out.URL = strings.TrimSuffix(r.Links.Self[0].Href, "/browse")
	}
	s.mu.Lock()
	s.page = out.URL
	s.mu.Unlock()
	return out, nil
}

// WhoAmI is the X-AUSERNAME of an earlier answer, else of the repository.
func (s *server) WhoAmI(ctx context.Context) (forge.Identity, error) {
	s.mu.Lock()
	self := s.self
	s.mu.Unlock()
	if self == "" {
		if _, err := s.Repository(ctx); err != nil {
			return forge.Identity{}, err
		}
		s.mu.Lock()
		self = s.self
		s.mu.Unlock()
	}
	if self == "" {
		return forge.Identity{}, errors.New("the Bitbucket Data Center server did not say who the token is (no X-AUSERNAME)")
	}
	return forge.Identity{Login: self}, nil
}

// BlobURL links a file's line at a commit: /browse/path?at=commit#12.
func (s *server) BlobURL(commit, file string, line int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.page == "" {
		return ""
	}
	u := forge.BlobURL(s.page, "browse", file, 0) + "?at=" + url.QueryEscape(commit)
	if line > 0 {
		u += "#" + strconv.Itoa(line)
	}
	return u
}

// Label does nothing: Data Center's pull requests have no labels.
func (s *server) Label(context.Context, int, []string) error { return nil }

// Issues: Data Center has no issue tracker (Jira is elsewhere): the
// dashboard is off.
func (s *server) FindIssue(context.Context, string, func([]*forge.Issue) *forge.Issue) (*forge.Issue, error) {
	return nil, fmt.Errorf("bitbucket data center: %w", forge.ErrNoIssueTracker)
}

func (s *server) CreateIssue(context.Context, string, string, []string) (*forge.Issue, error) {
	return nil, fmt.Errorf("bitbucket data center: %w", forge.ErrNoIssueTracker)
}

func (s *server) EditIssue(context.Context, int, string) error {
	return fmt.Errorf("bitbucket data center: %w", forge.ErrNoIssueTracker)
}

// dcList reads a listing by start and limit through forge.Pages, whose page
// numbers are the starts plus one (a next start not after this one links
// back).
func (s *server) dcList(ctx context.Context, what, ref string, query url.Values, limit int, each func([]json.RawMessage) (bool, error)) error {
	q := url.Values{}
	for k, v := range query {
		q[k] = v
	}
	q.Set("limit", strconv.Itoa(dcPage))
	return forge.Pages(what, limit, func(n int) (int, error) {
		q.Set("start", strconv.Itoa(n-1))
		var p struct {
			Values        []json.RawMessage `json:"values"`
			IsLastPage    bool              `json:"isLastPage"`
			NextPageStart int               `json:"nextPageStart"`
		}
		if err := s.api.do(ctx, http.MethodGet, ref, q, nil, &p); err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		more, err := each(p.Values)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if !more || p.IsLastPage {
			return 0, nil
		}
		return p.NextPageStart + 1, nil
	})
}
