package github

import (
	"bytes"
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	jwt "github.com/golang-jwt/jwt/v4"
	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/secret"
)

// App is a GitHub App that a run authenticates as, through one of its
// installations, instead of GITHUB_TOKEN: pull requests it opens trigger
// the repository's workflows, which those opened with GITHUB_TOKEN do not.
// It prints as "GitHub App <id>", never with its key.
type App struct {
	id           int64
	installation int64
	key          *rsa.PrivateKey

	mu    sync.Mutex
	creds map[string]*appCredentials // Token's, by API root and repository
}

// NewApp checks a GitHub App's credentials: its ID and a private key in
// the PEM form GitHub lets you download. installation is the id of its
// installation on the repository; 0 asks GitHub for it.
func NewApp(id int64, privateKey []byte, installation int64) (*App, error) {
	if id <= 0 {
		return nil, fmt.Errorf("GitHub App ID %d: want the App's numeric ID, shown on its settings page", id)
	}
	if installation < 0 {
		return nil, fmt.Errorf("GitHub App installation ID %d: want a positive number, or none to find it from the repository", installation)
	}
	// A key pasted into a single-line variable often has "\n" for its
	// line ends.
	if !bytes.Contains(privateKey, []byte("\n")) && bytes.Contains(privateKey, []byte(`\n`)) {
		privateKey = bytes.ReplaceAll(privateKey, []byte(`\n`), []byte("\n"))
	}
	key, err := jwt.ParseRSAPrivateKeyFromPEM(bytes.TrimSpace(privateKey))
	if err != nil {
		// jwt's errors name the problem, never the key's bytes.
		return nil, fmt.Errorf("GitHub App %d: private key: %v: want the whole .pem file that the App's settings page generates, from -----BEGIN to END----- lines", id, err)
	}
	return &App{id: id, installation: installation, key: key}, nil
}

// Token returns an installation token of the App for repository
// ("owner/name") at the API apiURL ("" for github.com), good for a few
// minutes at least: for callers that clone or fetch with git outside a
// run, such as `serve --clone`. Calls for one repository share a token
// until it nears its expiry. The token is a secret: keep it out of logs.
func (a *App) Token(ctx context.Context, apiURL, repository string) (string, error) {
	owner, name, err := forge.SplitRepository(repository)
	if err != nil {
		return "", err
	}
	api := apiRoot(apiURL)
	key := api + " " + owner + "/" + name
	a.mu.Lock()
	c := a.creds[key]
	a.mu.Unlock()
	if c == nil {
		// The credentials keep the installation and renew its token
		// before it expires: serve asks for each clone and fetch.
		o := Options{Config: forge.Config{Clock: forge.RealClock{}, Logger: slog.New(slog.DiscardHandler)}, App: a}
		if c, err = newAppCredentials(ctx, o, secret.Transport(http.DefaultTransport), api, owner, name); err != nil {
			return "", err
		}
		a.mu.Lock()
		if a.creds == nil {
			a.creds = map[string]*appCredentials{}
		}
		a.creds[key] = c
		a.mu.Unlock()
	}
	return c.Token(ctx)
}

// String names the App without its key.
func (a *App) String() string { return fmt.Sprintf("GitHub App %d", a.id) }

// GoString keeps %#v from printing the key.
func (a *App) GoString() string { return a.String() }

// JWT timing as GitHub recommends: issued a minute in the past, against a
// clock behind GitHub's, and valid for GitHub's ten minutes from then.
const (
	jwtBackdate = time.Minute
	jwtLifetime = 10 * time.Minute
)

// refreshMargin is how long a token must still be good for when it is
// handed out: longer than a rate-limit wait, so that an API retry never
// carries an expired token, and than any HTTP request of a push.
const refreshMargin = 5 * time.Minute

// clockSigner signs ghinstallation's JWT claims with times from the run's
// clock, GitHub's clock-drift allowance included: ghinstallation reads the
// wall clock and gives only 30 s of slack.
type clockSigner struct {
	key   *rsa.PrivateKey
	clock forge.Clock
}

func (s clockSigner) Sign(claims jwt.Claims) (string, error) {
	rc, ok := claims.(*jwt.RegisteredClaims)
	if !ok {
		return "", fmt.Errorf("sign GitHub App JWT: claims of type %T", claims)
	}
	iat := s.clock.Now().Truncate(time.Second).Add(-jwtBackdate)
	rc.IssuedAt, rc.ExpiresAt = jwt.NewNumericDate(iat), jwt.NewNumericDate(iat.Add(jwtLifetime))
	return jwt.NewWithClaims(jwt.SigningMethodRS256, rc).SignedString(s.key)
}

// appCredentials are an installation's tokens: ghinstallation signs the
// JWT and exchanges it for a token; a token is replaced refreshMargin
// before it expires, by the run's clock (ghinstallation's own check uses
// the wall clock, with a minute's margin).
type appCredentials struct {
	app   *App
	id    int64 // the installation
	api   string
	clock forge.Clock
	log   *slog.Logger
	atr   *ghinstallation.AppsTransport

	mu      sync.Mutex
	current *ghinstallation.Transport
	seen    []string // every token handed out, for scrub
}

// newAppCredentials finds the App's installation on owner/name, unless
// given, and gets its first token, so that bad credentials fail Open.
func newAppCredentials(ctx context.Context, o Options, rt http.RoundTripper, api, owner, name string) (*appCredentials, error) {
	atr, err := ghinstallation.NewAppsTransportWithOptions(rt, o.App.id, ghinstallation.WithSigner(clockSigner{o.App.key, o.Clock}))
	if err != nil {
		return nil, err
	}
	atr.BaseURL = api
	c := &appCredentials{app: o.App, id: o.App.installation, api: api, clock: o.Clock, log: o.Logger, atr: atr}
	if c.id == 0 {
		inst, _, err := c.asApp().Apps.FindRepositoryInstallation(ctx, owner, name)
		if err != nil {
			return nil, c.explain(err, owner+"/"+name)
		}
		c.id = inst.GetID()
		o.Logger.Debug("found the GitHub App's installation", "app", o.App.id, "installation", c.id)
	}
	if _, err := c.Token(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// asApp is a client authenticated as the App itself, by JWT.
func (c *appCredentials) asApp() *github.Client {
	gh := github.NewClient(&http.Client{Transport: c.atr, CheckRedirect: secret.CheckRedirect})
	gh.BaseURL, _ = gh.BaseURL.Parse(c.api + "/")
	return gh
}

func (c *appCredentials) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.current != nil {
		if exp, _, err := c.current.Expiry(); err != nil || !c.clock.Now().Before(exp.Add(-refreshMargin)) {
			c.current = nil
		}
	}
	if c.current == nil {
		c.current = ghinstallation.NewFromAppsTransport(c.atr, c.id)
		c.current.BaseURL = c.api
	}
	tok, err := c.current.Token(ctx)
	if err != nil {
		c.current = nil
		return "", c.explain(err, "")
	}
	if !slices.Contains(c.seen, tok) {
		c.seen = append(c.seen, tok)
		exp, _, _ := c.current.Expiry()
		c.log.Debug("new GitHub App installation token", "installation", c.id, "expires", exp)
	}
	return tok, nil
}

func (c *appCredentials) Scrub(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.seen {
		err = secret.Error(err, t)
	}
	return err
}

// explain turns GitHub's refusals of the App into what to fix. repo is
// set when the installation was being looked up.
func (c *appCredentials) explain(err error, repo string) error {
	status, msg := refusal(err)
	switch {
	case status == http.StatusUnauthorized:
		return fmt.Errorf("%v: GitHub refused its JWT (%s): check that IMAGEBOT_APP_ID is the App's ID and that the private key is one of that App's keys (a clock more than a minute off does this too)", c.app, msg)
	case status == http.StatusNotFound && repo != "":
		return fmt.Errorf("%v is not installed on %s: install it there (the App's settings, Install App), or set IMAGEBOT_APP_INSTALLATION_ID", c.app, repo)
	case status == http.StatusNotFound:
		return fmt.Errorf("%v has no installation %d: check IMAGEBOT_APP_INSTALLATION_ID, or unset it to find the installation from the repository", c.app, c.id)
	case status != 0:
		return fmt.Errorf("%v: installation token: HTTP %d %s", c.app, status, msg)
	}
	// Neither ghinstallation's nor go-github's errors quote a header: no
	// JWT or token is in err. (c.mu may be held: no scrub here.)
	return fmt.Errorf("%v: %w", c.app, err)
}

// refusal is the status and GitHub's message of a refused request, from
// go-github or from ghinstallation (whose response body is still open).
func refusal(err error) (int, string) {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode, er.Message
	}
	var he *ghinstallation.HTTPError
	if errors.As(err, &he) && he.Response != nil {
		defer he.Response.Body.Close()
		var doc struct{ Message string }
		json.NewDecoder(io.LimitReader(he.Response.Body, 64<<10)).Decode(&doc)
		return he.Response.StatusCode, strings.TrimSpace(doc.Message)
	}
	return 0, ""
}

// authTransport authenticates each API request with a current token.
type authTransport struct {
	creds forge.Credentials
	base  http.RoundTripper
}

func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.creds.Token(req.Context())
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if tok != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	return t.base.RoundTrip(req)
}
