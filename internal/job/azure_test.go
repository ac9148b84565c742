package job

import (
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestAzureSupported: --forge azure, AZURE_DEVOPS_TOKEN and Azure
// Pipelines on Azure Repos all reach Azure DevOps now (issue 27), where
// they were refused by name before.
func TestAzureSupported(t *testing.T) {
	for _, f := range []Forge{{Kind: forge.Azure}, {Env: ForgeEnv{AzureToken: true}}, {Env: ForgeEnv{AzureRepos: true}}, {}} {
		if err := ForgeSupported(f, "https://dev.azure.com/contoso/Web/_git/deploy"); err != nil {
			t.Errorf("%+v: %v", f, err)
		}
	}
	o := &Options{Forge: Forge{Env: ForgeEnv{AzureRepos: true}}}
	if h := o.AccessFor("https://dev.azure.com/contoso/Web/_git/deploy").Server; h.Name != "Azure DevOps" || h.URL != "https://dev.azure.com/contoso" {
		t.Errorf("AccessFor(…).Server: %+v", h)
	}
}

const (
	azurePAT = "azdopat0000000000000000000000000000000000000000bot"
	azureJWT = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJidWlsZCJ9.c2lnbmF0dXJl"
)

// TestAzureConnection: the collection comes from --forge-url, else
// SYSTEM_COLLECTIONURI, else origin, at a path for Server; the repository
// from origin, else Azure Pipelines' SYSTEM_TEAMPROJECT and
// BUILD_REPOSITORY_NAME. git goes to the collection's own clone URL, so
// the token reaches no other host, organisation or scheme: an origin in
// another organisation (dev.azure.com/other, other.visualstudio.com) or
// collection is refused before anything is sent.
func TestAzureConnection(t *testing.T) {
	const canonical = "https://dev.azure.com/contoso/Fabrikam%20Fiber/_git/deploy"
	for _, tc := range []struct {
		name, origin string // "" for no remote
		forgeURL     string
		az           Azure
		wantAPI      string
		wantURL      string
		wantRepo     string
		want         string // an error's words
	}{
		{name: "origin", origin: canonical, wantAPI: "https://dev.azure.com/contoso", wantURL: canonical, wantRepo: "Fabrikam Fiber/deploy"},
		{name: "origin with a user", origin: "https://contoso@dev.azure.com/contoso/Fabrikam%20Fiber/_git/deploy",
			wantAPI: "https://dev.azure.com/contoso", wantURL: canonical, wantRepo: "Fabrikam Fiber/deploy"},
		{name: "the old host", origin: "https://contoso.visualstudio.com/Fabrikam%20Fiber/_git/deploy",
			wantAPI: "https://dev.azure.com/contoso", wantURL: canonical, wantRepo: "Fabrikam Fiber/deploy"},
		{name: "ssh", origin: "git@ssh.dev.azure.com:v3/contoso/Fabrikam%20Fiber/deploy",
			wantAPI: "https://dev.azure.com/contoso", wantURL: canonical, wantRepo: "Fabrikam Fiber/deploy"},
		{name: "pipelines' collection", origin: canonical, az: Azure{Collection: "https://contoso.visualstudio.com/"},
			wantAPI: "https://dev.azure.com/contoso", wantURL: canonical, wantRepo: "Fabrikam Fiber/deploy"},
		{name: "another organisation", origin: "https://dev.azure.com/fabrikam/Web/_git/deploy", az: Azure{Collection: "https://dev.azure.com/contoso/"},
			want: "is in the Azure DevOps collection https://dev.azure.com/fabrikam, not in https://dev.azure.com/contoso"},
		{name: "another organisation's old host", origin: "https://fabrikam.visualstudio.com/Web/_git/deploy", forgeURL: "https://dev.azure.com/contoso",
			want: "so nothing was sent"},
		{name: "server at a path", origin: "https://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy", forgeURL: "https://tfs.example.com/tfs/DefaultCollection",
			wantAPI: "https://tfs.example.com/tfs/DefaultCollection", wantURL: "https://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy", wantRepo: "Web/deploy"},
		{name: "server from origin", origin: "https://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy",
			wantAPI: "https://tfs.example.com/tfs/DefaultCollection", wantURL: "https://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy", wantRepo: "Web/deploy"},
		{name: "another collection", origin: "https://tfs.example.com/tfs/Other/Web/_git/deploy", forgeURL: "https://tfs.example.com/tfs/DefaultCollection",
			want: "not in https://tfs.example.com/tfs/DefaultCollection"},
		{name: "plain http", origin: "http://tfs.example.com/tfs/DefaultCollection/Web/_git/deploy", forgeURL: "https://tfs.example.com/tfs/DefaultCollection",
			want: "so nothing was sent"},
		{name: "not azure repos", origin: "https://github.com/acme/gitops.git", forgeURL: "https://dev.azure.com/contoso",
			want: "is not an Azure Repos clone URL (…/PROJECT/_git/REPO), but --forge azure says the host is Azure DevOps"},
		{name: "no collection", origin: "https://github.com/acme/gitops.git", want: "no Azure DevOps collection"},
		{name: "pipelines without origin", az: Azure{Collection: "https://dev.azure.com/contoso/", Project: "Fabrikam Fiber", Repository: "deploy"},
			wantAPI: "https://dev.azure.com/contoso", wantURL: canonical, wantRepo: "Fabrikam Fiber/deploy"},
		{name: "no origin", az: Azure{Collection: "https://dev.azure.com/contoso/"}, want: "SYSTEM_TEAMPROJECT and BUILD_REPOSITORY_NAME"},
	} {
		dir := t.TempDir()
		cmds := [][]string{{"init", "-q"}}
		if tc.origin != "" {
			cmds = append(cmds, []string{"remote", "add", "origin", tc.origin})
		}
		for _, args := range cmds {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		tc.az.Token = azurePAT
		o := &Options{Repo: dir, Forge: Forge{Kind: forge.Azure, URL: tc.forgeURL}, Azure: tc.az}
		conn, acc, err := forgeConnection(o, nil)
		switch {
		case tc.want == "" && (err != nil || !acc.Credentials() || conn.Forge != forge.Azure || conn.APIURL != tc.wantAPI || conn.URL != tc.wantURL || conn.Repository != tc.wantRepo):
			t.Errorf("%s: %+v %v", tc.name, conn, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), azurePAT) {
			t.Errorf("%s: the token is in %v", tc.name, err)
		}
	}
}

// TestAzureNoToken: without AZURE_DEVOPS_TOKEN or SYSTEM_ACCESSTOKEN, run
// says which to set (the job token needs mapping in a pipeline); a dry
// run previews instead.
func TestAzureNoToken(t *testing.T) {
	o := &Options{Repo: t.TempDir(), Forge: Forge{Kind: forge.Azure, URL: "https://dev.azure.com/contoso"}}
	_, acc, err := forgeConnection(o, nil)
	if err != nil || acc.Credentials() {
		t.Fatalf("forgeConnection: %+v %v", acc, err)
	}
	if err := acc.NoToken(CmdRun); !errors.Is(err, ErrNoToken) || !strings.Contains(err.Error(), "AZURE_DEVOPS_TOKEN is not set") ||
		!strings.Contains(err.Error(), "SYSTEM_ACCESSTOKEN set to $(System.AccessToken)") {
		t.Errorf("run: %v", err)
	}
}

// TestExplainAzure: each refusal is one line naming the collection and
// the token's variable (the job token's for a JWT): 401, the sign-in
// page (a 203, what an expired PAT often gets), 403 with the permissions
// the build service needs, 404, and git's refusal; anything else leaves
// the run partly done.
func TestExplainAzure(t *testing.T) {
	c := gitops.Options{Forge: forge.Azure, APIURL: "https://dev.azure.com/contoso", Repository: "Web/deploy",
		URL: "https://dev.azure.com/contoso/Web/_git/deploy", Token: azurePAT}
	refused := func(code int, msg string) error {
		return fmt.Errorf("get repository Web/deploy: %w", &forge.HTTPError{Status: code, Err: errors.New(msg)})
	}
	for _, tc := range []struct {
		name  string
		err   error
		token string
		want  string
	}{
		{"401", refused(http.StatusUnauthorized, "TF400813: not authorized"), azurePAT, "rejected AZURE_DEVOPS_TOKEN (401"},
		{"203", refused(http.StatusUnauthorized, "the sign-in page: Azure DevOps did not take the token"), azurePAT, "sign-in page (203) instead of the API: it did not take AZURE_DEVOPS_TOKEN"},
		{"403 job token", refused(http.StatusForbidden, "TF401027: You need the Git 'PullRequestContribute' permission"), azureJWT,
			"refused SYSTEM_ACCESSTOKEN on Web/deploy (403"},
		{"404", refused(http.StatusNotFound, "TF401019: no such repository"), azurePAT, "has no repository Web/deploy that AZURE_DEVOPS_TOKEN can see (404)"},
		{"git", fmt.Errorf("fetch: %w", transport.ErrAuthenticationRequired), azureJWT, "refused SYSTEM_ACCESSTOKEN"},
	} {
		c.Token = tc.token
		err := explainForge(tc.err, c)
		var pe *PartialError
		if errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || !errors.Is(err, tc.err) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if strings.Contains(err.Error(), tc.token) {
			t.Errorf("%s: the token is in %v", tc.name, err)
		}
	}
	if err := explainForge(errors.New("connection reset"), c); !errors.As(err, new(*PartialError)) {
		t.Errorf("other: %v, want partly done", err)
	}
}

// TestAzureChosenByToken: AZURE_DEVOPS_TOKEN alone makes the host Azure
// DevOps; a clone of a repository elsewhere is refused, naming what chose
// the host, and the token is sent nowhere.
func TestAzureChosenByToken(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://github.com/acme/gitops.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	o := &Options{Repo: dir, Forge: Forge{Env: ForgeEnv{AzureToken: true}, URL: "https://dev.azure.com/contoso"}, Azure: Azure{Token: azurePAT}}
	_, _, err := forgeConnection(o, nil)
	if err == nil || !strings.Contains(err.Error(), "but AZURE_DEVOPS_TOKEN says the host is Azure DevOps") {
		t.Errorf("%v", err)
	}
}
