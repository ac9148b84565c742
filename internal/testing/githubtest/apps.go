package githubtest

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// defaultTokenLifetime is how long GitHub's installation tokens live.
const defaultTokenLifetime = time.Hour

// App is a GitHub App the fake knows: requests authenticate as it with a
// JWT signed by Key, and as its installations with the tokens it gets.
type App struct {
	ID   int64
	Slug string // its bot user is "<slug>[bot]"
	Key  *rsa.PublicKey
}

type app struct {
	id   int64
	slug string
	key  *rsa.PublicKey
}

// bot is the login of the App's bot user, who its installations act as.
func (a *app) bot() string { return a.slug + "[bot]" }

type installation struct {
	id    int64
	app   *app
	repos []string // lower-case "owner/name"
}

func (i *installation) covers(owner, name string) bool {
	return slices.Contains(i.repos, repoKey(owner, name))
}

// issued is an installation token and when it stops working.
type issued struct {
	inst    *installation
	expires time.Time
}

// WithTokenLifetime sets how long installation tokens live, in the fake's
// clock: an hour unless set. Tests set a few minutes to see a run refresh
// its token.
func WithTokenLifetime(d time.Duration) Option { return func(s *Server) { s.tokenLifetime = d } }

// AddApp registers a GitHub App.
func (s *Server) AddApp(a App) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apps[a.ID] = &app{id: a.ID, slug: a.Slug, key: a.Key}
}

// Install installs the App on repositories ("owner/name") and returns the
// installation's id. The App must have been added.
func (s *Server) Install(appID int64, repos ...string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.apps[appID]
	if a == nil {
		panic(fmt.Sprintf("githubtest: Install: no App %d", appID))
	}
	inst := &installation{id: s.id(), app: a}
	for _, r := range repos {
		inst.repos = append(inst.repos, strings.ToLower(r))
	}
	s.installations[inst.id] = inst
	return inst.id
}

// InstallationTokens returns every installation token handed out so far,
// expired ones too, in no order: tests count them, and make sure none was
// printed.
func (s *Server) InstallationTokens() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for t := range s.tokens {
		out = append(out, t)
	}
	return out
}

type appJSON struct {
	ID          int64             `json:"id"`
	Slug        string            `json:"slug"`
	NodeID      string            `json:"node_id"`
	Name        string            `json:"name"`
	HTMLURL     string            `json:"html_url"`
	Permissions map[string]string `json:"permissions"`
}

// permissions are what imagebot's App asks for.
var permissions = map[string]string{"contents": "write", "pull_requests": "write", "metadata": "read", "checks": "read", "statuses": "read"}

// getApp is GET /app: the App the JWT is of.
func (s *Server) getApp(w http.ResponseWriter, req *http.Request) {
	a := actorOf(req).app
	writeJSON(w, http.StatusOK, appJSON{ID: a.id, Slug: a.slug, NodeID: nodeID("A", a.slug), Name: a.slug,
		HTMLURL: "https://github.com/apps/" + a.slug, Permissions: permissions})
}

type installationJSON struct {
	ID                  int64             `json:"id"`
	AppID               int64             `json:"app_id"`
	AppSlug             string            `json:"app_slug"`
	TargetType          string            `json:"target_type"`
	Account             userJSON          `json:"account"`
	RepositorySelection string            `json:"repository_selection"`
	AccessTokensURL     string            `json:"access_tokens_url"`
	Permissions         map[string]string `json:"permissions"`
}

// repoInstallation is GET /repos/{owner}/{repo}/installation: the JWT's
// App's installation on the repository, 404 when it is not installed.
func (s *Server) repoInstallation(w http.ResponseWriter, req *http.Request) {
	a := actorOf(req).app
	owner, name := req.PathValue("owner"), req.PathValue("repo")
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, inst := range s.installations {
		if inst.app == a && inst.covers(owner, name) && s.repos[repoKey(owner, name)] != nil {
			account := user(owner)
			account.Type = "Organization"
			writeJSON(w, http.StatusOK, installationJSON{
				ID: inst.id, AppID: a.id, AppSlug: a.slug, TargetType: "Organization", Account: account,
				RepositorySelection: "selected", Permissions: permissions,
				AccessTokensURL: fmt.Sprintf("%s/app/installations/%d/access_tokens", s.URL(), inst.id),
			})
			return
		}
	}
	notFound(w, req)
}

type accessTokenJSON struct {
	Token               string            `json:"token"`
	ExpiresAt           string            `json:"expires_at"`
	Permissions         map[string]string `json:"permissions"`
	RepositorySelection string            `json:"repository_selection"`
}

// createAccessToken is POST /app/installations/{id}/access_tokens: a new
// token for one of the JWT's App's installations, expiring after the
// token lifetime.
func (s *Server) createAccessToken(w http.ResponseWriter, req *http.Request) {
	a := actorOf(req).app
	id, err := strconv.ParseInt(req.PathValue("id"), 10, 64)
	s.mu.Lock()
	defer s.mu.Unlock()
	inst := s.installations[id]
	if err != nil || inst == nil || inst.app != a {
		notFound(w, req)
		return
	}
	b := make([]byte, 18)
	rand.Read(b)
	tok := "ghs_" + hex.EncodeToString(b)
	expires := s.now().Add(s.tokenLifetime)
	s.tokens[tok] = &issued{inst: inst, expires: expires}
	writeJSON(w, http.StatusCreated, accessTokenJSON{Token: tok, ExpiresAt: stamp(expires), Permissions: permissions, RepositorySelection: "selected"})
}

// getUser is GET /users/{login}, for the logins the fake has: the bots
// and the human.
func (s *Server) getUser(w http.ResponseWriter, req *http.Request) {
	login := req.PathValue("login")
	s.mu.Lock()
	known := strings.EqualFold(login, botLogin) || strings.EqualFold(login, humanLogin)
	for _, u := range s.users {
		known = known || strings.EqualFold(login, u)
	}
	for _, a := range s.apps {
		known = known || strings.EqualFold(login, a.bot())
	}
	s.mu.Unlock()
	if !known {
		notFound(w, req)
		return
	}
	writeJSON(w, http.StatusOK, user(login))
}

// getAuthenticatedUser is GET /user, which only a person's token can ask:
// GitHub answers a bot's token with 403.
func (s *Server) getAuthenticatedUser(w http.ResponseWriter, req *http.Request) {
	if a := actorOf(req); a.cred == withUser {
		writeJSON(w, http.StatusOK, user(a.login))
		return
	}
	writeError(w, http.StatusForbidden, "Resource not accessible by integration")
}

// botID gives every bot but github-actions[bot] (41898282 on github.com) a
// stable user id of its own, as its noreply email needs one.
func botID(login string) int64 {
	if login == botLogin {
		return 41898282
	}
	h := fnv.New32a()
	h.Write([]byte(login))
	return 100000000 + int64(h.Sum32()%100000000)
}

// NoreplyEmail is the commit email GitHub gives a user or bot:
// "<id>+<login>@users.noreply.github.com".
func NoreplyEmail(login string) string {
	return fmt.Sprintf("%d+%s@users.noreply.github.com", user(login).ID, login)
}
