package forge

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Config is how a driver reaches the repository on its host: what every
// driver's New takes.
type Config struct {
	URL        string // the git remote, origin: its host is dialled too (APIGuard)
	Repository string // "owner/name" (GitLab: the project's full path)
	APIURL     string // the host's API or server URL, as the driver reads it
	Token      string // API token and git password; never printed
	// User is the account Token authenticates as, where the host's API
	// wants one besides the token (Bitbucket Cloud: the Atlassian
	// account's e-mail, BITBUCKET_USERNAME); "" elsewhere.
	User       string
	Logger     *slog.Logger
	HTTPClient *http.Client  // the API's client (tests); default RetryingClient
	MaxWait    time.Duration // longest wait for a rate limit
	Clock      Clock         // the time rate limits are waited out in
	// App, when set, is a GitHub App to authenticate as instead of
	// Token: its installation's tokens are the API token and git
	// password, each refreshed before it expires.
	App *App
}

// WithDefaults is c with what an unset Logger, MaxWait and Clock mean: no
// log, a minute's wait at most, the machine's time.
func (c Config) WithDefaults() Config {
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if c.MaxWait <= 0 {
		c.MaxWait = time.Minute
	}
	if c.Clock == nil {
		c.Clock = RealClock{}
	}
	return c
}

// BlobURL links a file's line (0: none) at commit under page, the host's
// web path of a repository's files at a commit ("https://github.com/o/r/blob";
// GitLab's ".../-/blob", Gitea's ".../src/commit"). Every host anchors a
// line as #L12.
func BlobURL(page, commit, file string, line int) string {
	parts := strings.Split(file, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	u := page + "/" + commit + "/" + strings.Join(parts, "/")
	if line > 0 {
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}

// SplitReviewers parts reviewers into people and the owner's teams,
// named "owner/team", by their name alone, as GitHub and Gitea take them.
func SplitReviewers(owner string, reviewers []string) (users, teams []string) {
	for _, r := range reviewers {
		if t, ok := strings.CutPrefix(r, owner+"/"); ok {
			teams = append(teams, t)
		} else {
			users = append(users, r)
		}
	}
	return users, teams
}

// SplitRepository splits "owner/name".
func SplitRepository(repository string) (owner, name string, err error) {
	owner, name, ok := strings.Cut(repository, "/")
	if !ok || owner == "" || name == "" {
		return "", "", fmt.Errorf("repository %q: want owner/name", repository)
	}
	return owner, name, nil
}
