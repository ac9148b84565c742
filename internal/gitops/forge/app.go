package forge

import (
	"bytes"
	"context"
	"crypto/rsa"
	"fmt"
	"strings"
	"sync"

	jwt "github.com/golang-jwt/jwt/v4"
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
	creds map[string]Credentials // Token's, by API URL and repository
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

// String names the App without its key.
func (a *App) String() string { return fmt.Sprintf("GitHub App %d", a.id) }

// GoString keeps %#v from printing the key.
func (a *App) GoString() string { return a.String() }

// Token returns an installation token of the App for repository
// ("owner/name") at the API apiURL ("" for github.com), good for a few
// minutes at least: for callers that clone or fetch with git outside a
// run, such as `serve --clone`. Calls for one repository share a token
// until it nears its expiry. The token is a secret: keep it out of logs.
// The GitHub driver makes the credentials (RegisterAppTokens).
func (a *App) Token(ctx context.Context, apiURL, repository string) (string, error) {
	key := strings.TrimSuffix(apiURL, "/") + " " + repository
	a.mu.Lock()
	c := a.creds[key]
	a.mu.Unlock()
	if c == nil {
		drivers.Lock()
		newCreds := appTokens
		drivers.Unlock()
		if newCreds == nil {
			return "", fmt.Errorf("%v: %w: no GitHub driver is linked", a, ErrNotSupported)
		}
		var err error
		// The credentials keep the installation and renew its token
		// before it expires: serve asks for each clone and fetch.
		if c, err = newCreds(ctx, a, apiURL, repository); err != nil {
			return "", err
		}
		a.mu.Lock()
		if a.creds == nil {
			a.creds = map[string]Credentials{}
		}
		a.creds[key] = c
		a.mu.Unlock()
	}
	return c.Token(ctx)
}

// ID is the App's numeric ID.
func (a *App) ID() int64 { return a.id }

// Installation is the App's installation on the repository; 0 asks the
// host for it.
func (a *App) Installation() int64 { return a.installation }

// Key is the App's private key, for the driver that signs its JWTs.
func (a *App) Key() *rsa.PrivateKey { return a.key }
