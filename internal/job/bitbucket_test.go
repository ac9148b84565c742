package job

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	git "github.com/go-git/go-git/v5"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

const bbToken = "ATATT_s3cret"

// TestBitbucketCloudConnection: the repository is origin's workspace/slug
// in each form a clone has (https with or without a user, ssh, Bitbucket
// Pipelines' plain http through its proxy); git goes to the https clone
// URL on bitbucket.org, the API to api.bitbucket.org, and --forge-url
// moves both (a test's fake). Origin on another host gets nothing.
func TestBitbucketCloudConnection(t *testing.T) {
	for _, tc := range []struct {
		name, origin, forgeURL string
		wantRepo, wantURL      string
		wantAPI, wantErr       string
	}{
		{"https", "https://bitbucket.org/acme/gitops.git", "", "acme/gitops", "https://bitbucket.org/acme/gitops.git", "https://api.bitbucket.org", ""},
		{"a user, no .git", "https://jane@bitbucket.org/acme/gitops", "", "acme/gitops", "https://bitbucket.org/acme/gitops.git", "https://api.bitbucket.org", ""},
		{"ssh", "git@bitbucket.org:acme/gitops.git", "", "acme/gitops", "https://bitbucket.org/acme/gitops.git", "https://api.bitbucket.org", ""},
		{"Pipelines' http origin", "http://bitbucket.org/acme/gitops", "", "acme/gitops", "https://bitbucket.org/acme/gitops.git", "https://api.bitbucket.org", ""},
		{"--forge-url", "http://127.0.0.1:8080/acme/gitops.git", "http://127.0.0.1:8080/", "acme/gitops", "http://127.0.0.1:8080/acme/gitops.git", "http://127.0.0.1:8080", ""},
		{"another host", "https://github.com/acme/gitops.git", "", "", "", "", "is on github.com:443, not on the Bitbucket server bitbucket.org"},
		{"not ws/slug", "https://bitbucket.org/acme/sub/gitops.git", "", "", "", "", "want https://bitbucket.org/WORKSPACE/REPOSITORY.git"},
	} {
		o := &Options{Repo: t.TempDir(), Forge: Forge{Kind: forge.Bitbucket, URL: tc.forgeURL},
			Bitbucket: Bitbucket{Token: bbToken, Username: "bot@acme.example"}}
		conn, ok, err := bitbucketConnection(o, origin{url: tc.origin}, nil)
		switch {
		case tc.wantErr == "" && (err != nil || !ok || conn.Repository != tc.wantRepo || conn.URL != tc.wantURL || conn.APIURL != tc.wantAPI ||
			conn.User != "bot@acme.example" || conn.Forge != forge.Bitbucket):
			t.Errorf("%s: %+v %v %v", tc.name, conn, ok, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), bbToken) {
			t.Errorf("%s: the token is in %v", tc.name, err)
		}
		if host := o.AccessFor(tc.origin).Server; host.Name != "Bitbucket" {
			t.Errorf("%s: AccessFor(…).Server = %+v", tc.name, host)
		}
	}
}

// TestBitbucketDataCenterConnection: the server is --forge-url, else
// BITBUCKET_SERVER_URL, else origin's (at a path too); the repository is
// PROJECT/slug from /scm/proj/slug.git or an ssh origin's proj/slug; git
// goes to the server's https clone URL. Origin elsewhere gets nothing.
func TestBitbucketDataCenterConnection(t *testing.T) {
	for _, tc := range []struct {
		name, origin, server string
		wantRepo, wantURL    string
		wantAPI, wantErr     string
	}{
		{"server from origin", "https://git.acme.example/scm/ops/gitops.git", "", "OPS/gitops", "https://git.acme.example/scm/ops/gitops.git", "https://git.acme.example", ""},
		{"at a path", "https://acme.example/bitbucket/scm/ops/gitops.git", "", "OPS/gitops", "https://acme.example/bitbucket/scm/ops/gitops.git", "https://acme.example/bitbucket", ""},
		{"a personal project", "https://jane@acme.example/bitbucket/scm/~jane/gitops.git", "", "~jane/gitops", "https://acme.example/bitbucket/scm/~jane/gitops.git", "https://acme.example/bitbucket", ""},
		{"ssh, server named", "ssh://git@acme.example:7999/ops/gitops.git", "https://acme.example/bitbucket/", "OPS/gitops", "https://acme.example/bitbucket/scm/ops/gitops.git", "https://acme.example/bitbucket", ""},
		{"ssh, server from it", "ssh://git@git.acme.example:7999/ops/gitops.git", "", "OPS/gitops", "https://git.acme.example/scm/ops/gitops.git", "https://git.acme.example", ""},
		{"another host", "https://git.acme.example/scm/ops/gitops.git", "https://bitbucket.acme.example", "", "", "", "not on the Bitbucket Data Center server bitbucket.acme.example"},
		{"outside its path", "https://acme.example/other/scm/ops/gitops.git", "https://acme.example/bitbucket", "", "", "", "not under the server's path /bitbucket"},
		{"no /scm/", "https://acme.example/ops/gitops.git", "https://acme.example", "", "", "", "want https://acme.example/scm/PROJECT/REPOSITORY.git"},
		{"no server", "https://acme.example/ops/gitops.git", "", "", "", "", "BITBUCKET_SERVER_URL (or --forge-url)"},
	} {
		o := &Options{Repo: t.TempDir(), Forge: Forge{Kind: forge.BitbucketServer},
			Bitbucket: Bitbucket{ServerToken: bbToken, ServerURL: tc.server}}
		conn, ok, err := bitbucketServerConnection(o, origin{url: tc.origin}, nil)
		switch {
		case tc.wantErr == "" && (err != nil || !ok || conn.Repository != tc.wantRepo || conn.URL != tc.wantURL || conn.APIURL != tc.wantAPI):
			t.Errorf("%s: %+v %v %v", tc.name, conn, ok, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.wantErr)
		}
		if err != nil && strings.Contains(err.Error(), bbToken) {
			t.Errorf("%s: the token is in %v", tc.name, err)
		}
		if tc.wantErr == "" {
			if host := o.AccessFor(tc.origin).Server; host.Name != "Bitbucket Data Center" || host.URL != tc.wantAPI {
				t.Errorf("%s: AccessFor(…).Server = %+v", tc.name, host)
			}
		}
	}
}

// TestBitbucketNoToken: without the host's token there are no credentials,
// and a run is refused naming the variable (and, for Cloud, the scopes and that app
// passwords stopped working); a Cloud token without its account's e-mail
// is refused naming BITBUCKET_USERNAME.
func TestBitbucketNoToken(t *testing.T) {
	or := origin{url: "https://bitbucket.org/acme/gitops.git"}
	acc := (&Options{Repo: t.TempDir()}).AccessFor(or.url)
	accDC := (&Options{Repo: t.TempDir(), Forge: Forge{Kind: forge.BitbucketServer}}).AccessFor("https://git.acme.example/scm/ops/gitops.git")
	switch err, errDC := acc.NoToken(CmdRun), accDC.NoToken(CmdRun); {
	case acc.Credentials() || accDC.Credentials():
		t.Errorf("credentials without a token: %+v %+v", acc, accDC)
	case err == nil || !strings.Contains(err.Error(), "BITBUCKET_TOKEN is not set") ||
		!strings.Contains(err.Error(), "write:pullrequest:bitbucket") || !strings.Contains(err.Error(), "June 2026"):
		t.Errorf("no BITBUCKET_TOKEN: %v", err)
	case errDC == nil || !strings.Contains(errDC.Error(), "BITBUCKET_SERVER_TOKEN is not set"):
		t.Errorf("no BITBUCKET_SERVER_TOKEN: %v", errDC)
	}
	o := &Options{Repo: t.TempDir(), Bitbucket: Bitbucket{Token: bbToken}}
	if _, _, err := bitbucketConnection(o, or, nil); err == nil || !strings.Contains(err.Error(), "BITBUCKET_USERNAME is not set") {
		t.Errorf("no BITBUCKET_USERNAME: %v", err)
	}
}

// TestExplainBitbucket: each host's 401, 403 and 404 in one line naming
// the variable and what to do; anything else is a partial failure.
func TestExplainBitbucket(t *testing.T) {
	cloud := gitops.Options{Forge: forge.Bitbucket, Repository: "acme/gitops", APIURL: "https://api.bitbucket.org"}
	dc := gitops.Options{Forge: forge.BitbucketServer, Repository: "OPS/gitops", APIURL: "https://acme.example/bitbucket"}
	refusal := func(code int, msg string) error {
		return fmt.Errorf("get repository: %w", &forge.HTTPError{Status: code, Err: errors.New(msg)})
	}
	for _, tc := range []struct {
		c    gitops.Options
		err  error
		want []string
	}{
		{cloud, refusal(http.StatusUnauthorized, "Unauthorized"), []string{"Bitbucket Cloud rejected BITBUCKET_TOKEN with BITBUCKET_USERNAME (401 Unauthorized)", "app passwords stopped working in June 2026"}},
		{cloud, refusal(http.StatusForbidden, "Your credentials lack one or more required privilege scopes."), []string{"refused BITBUCKET_TOKEN on acme/gitops (403 ", "write:pullrequest:bitbucket", "write:issue:bitbucket"}},
		{cloud, fmt.Errorf("%w: %w", forge.ErrNoRepository, &forge.HTTPError{Status: 404, Err: errors.New("not found")}), []string{"Bitbucket Cloud has no repository acme/gitops that BITBUCKET_TOKEN can see (404)"}},
		{dc, refusal(http.StatusUnauthorized, "Authentication failed."), []string{"Bitbucket Data Center at https://acme.example/bitbucket rejected BITBUCKET_SERVER_TOKEN (401 Authentication failed.)", "HTTP access token"}},
		{dc, refusal(http.StatusForbidden, "forbidden"), []string{"refused BITBUCKET_SERVER_TOKEN on OPS/gitops (403 forbidden): give the token repository write permission"}},
		{dc, fmt.Errorf("%w: %w", forge.ErrNoRepository, &forge.HTTPError{Status: 404, Err: errors.New("no such repository")}), []string{"has no repository OPS/gitops that BITBUCKET_SERVER_TOKEN can see (404)"}},
	} {
		err := explainForge(tc.err, tc.c)
		var pe *PartialError
		if errors.As(err, &pe) {
			t.Errorf("%v: a partial failure, want it explained", tc.err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q, want %q", tc.err, err, w)
			}
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: the cause is lost", tc.err)
		}
	}
	var pe *PartialError
	if err := explainForge(errors.New("connection reset"), dc); !errors.As(err, &pe) {
		t.Errorf("another failure: %v, want a partial one", err)
	}
}

// TestBitbucketSupported: --forge bitbucket and bitbucket-server, and their
// CI and tokens, are hosts imagebot speaks to.
func TestBitbucketSupported(t *testing.T) {
	for _, f := range []Forge{{Kind: forge.Bitbucket}, {Kind: forge.BitbucketServer}, {Env: ForgeEnv{BitbucketPipelines: true}},
		{Env: ForgeEnv{BitbucketToken: true}}, {Env: ForgeEnv{BitbucketServerToken: true}}} {
		if err := ForgeSupported(f, ""); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
}

// TestBitbucketFailuresExplained: a pull request Bitbucket refused (a
// token without write:pullrequest:bitbucket) is said in the run's words,
// naming the scopes; the others stay as they were.
func TestBitbucketFailuresExplained(t *testing.T) {
	c := gitops.Options{Forge: forge.Bitbucket, Repository: "acme/gitops"}
	refused := fmt.Errorf("create pull request: %w", &forge.HTTPError{Status: http.StatusForbidden, Err: errors.New("Your credentials lack one or more required privilege scopes.")})
	other := errors.New("push imagebot/x: connection reset")
	res := &gitops.Result{Failed: []error{refused, other}}
	explainFailures(res, c)
	if !strings.Contains(res.Failed[0].Error(), "refused BITBUCKET_TOKEN on acme/gitops (403 ") || !strings.Contains(res.Failed[0].Error(), "write:pullrequest:bitbucket") {
		t.Errorf("refused: %v", res.Failed[0])
	}
	if res.Failed[1] != other {
		t.Errorf("other: %v", res.Failed[1])
	}
}

// TestBitbucketNoOrigin: without origin, Bitbucket Pipelines'
// BITBUCKET_REPO_FULL_NAME names the Cloud repository, reached on
// bitbucket.org; a Data Center without origin says what is missing.
func TestBitbucketNoOrigin(t *testing.T) {
	none := origin{err: git.ErrRemoteNotFound}
	o := &Options{Repo: t.TempDir(), Bitbucket: Bitbucket{Token: bbToken, Username: "bot@acme.example", Repository: "acme/gitops"}}
	conn, ok, err := bitbucketConnection(o, none, nil)
	if err != nil || !ok || conn.Repository != "acme/gitops" || conn.URL != "https://bitbucket.org/acme/gitops.git" {
		t.Errorf("Pipelines' repository: %+v %v %v", conn, ok, err)
	}
	o = &Options{Repo: t.TempDir(), Bitbucket: Bitbucket{ServerToken: bbToken, ServerURL: "https://acme.example/bitbucket"}}
	if _, _, err := bitbucketServerConnection(o, none, nil); err == nil || !strings.Contains(err.Error(), "has no git remote `origin`") {
		t.Errorf("Data Center without origin: %v", err)
	}
}
