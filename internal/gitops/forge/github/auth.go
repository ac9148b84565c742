package github

import (
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

// appTokens makes an App's installation credentials for forge.App.Token,
// outside a run (serve's clones): the plain transport, the real clock.
func appTokens(ctx context.Context, a *forge.App, apiURL, repository string) (forge.Credentials, error) {
	owner, name, err := forge.SplitRepository(repository)
	if err != nil {
		return nil, err
	}
	o := forge.Config{Clock: forge.RealClock{}, Logger: slog.New(slog.DiscardHandler), App: a}
	return newAppCredentials(ctx, o, secret.Transport(http.DefaultTransport), apiRoot(apiURL), owner, name)
}

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
	app   *forge.App
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
func newAppCredentials(ctx context.Context, o forge.Config, rt http.RoundTripper, api, owner, name string) (*appCredentials, error) {
	atr, err := ghinstallation.NewAppsTransportWithOptions(rt, o.App.ID(), ghinstallation.WithSigner(clockSigner{o.App.Key(), o.Clock}))
	if err != nil {
		return nil, err
	}
	atr.BaseURL = api
	c := &appCredentials{app: o.App, id: o.App.Installation(), api: api, clock: o.Clock, log: o.Logger, atr: atr}
	if c.id == 0 {
		inst, _, err := c.asApp().Apps.FindRepositoryInstallation(ctx, owner, name)
		if err != nil {
			return nil, c.explain(err, owner+"/"+name)
		}
		c.id = inst.GetID()
		o.Logger.Debug("found the GitHub App's installation", "app", o.App.ID(), "installation", c.id)
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
