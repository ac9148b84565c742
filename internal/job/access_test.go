package job

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestAccessFor: each of the six hosts, chosen once from a remote, says
// which variable holds its token, how git sends it, which server it may
// go to, and each command's refusal without it: the host's variable, the
// command's own words, and ErrNoToken underneath, so that serve counts a
// missing token as such whatever the host.
func TestAccessFor(t *testing.T) {
	for _, tc := range []struct {
		kind     gitops.Kind
		remote   string
		o        Options
		tokenVar string
		user     string
		server   string // Server.Name
		run      string // each command's message starts so
		rollback string
		serve    string
	}{
		{forge.GitHub, "https://github.com/acme/gitops.git", Options{},
			"GITHUB_TOKEN", "", "GitHub",
			"GITHUB_TOKEN is not set: run needs a token", "GITHUB_TOKEN is not set: rollback reads", "GITHUB_TOKEN is not set: serve needs a token"},
		{forge.GitLab, "https://gitlab.com/acme/gitops.git", Options{},
			"GITLAB_TOKEN", "oauth2", "GitLab",
			"GITLAB_TOKEN is not set: run needs a project or group access token", "GITLAB_TOKEN is not set: run needs", "GITLAB_TOKEN is not set: serve needs a GitLab"},
		{forge.Gitea, "https://codeberg.org/acme/gitops.git", Options{},
			"GITEA_TOKEN", "", "Gitea",
			"GITEA_TOKEN is not set: run needs a Gitea or Forgejo access token with", "GITEA_TOKEN is not set: run needs", "GITEA_TOKEN is not set: serve needs"},
		{forge.Bitbucket, "https://bitbucket.org/acme/gitops.git", Options{},
			"BITBUCKET_TOKEN", BitbucketGitUser, "Bitbucket",
			"BITBUCKET_TOKEN is not set: run needs a Bitbucket Cloud API token", "BITBUCKET_TOKEN is not set: run needs", "BITBUCKET_TOKEN is not set: serve needs"},
		{forge.BitbucketServer, "https://git.acme.example/scm/ops/gitops.git", Options{Forge: Forge{Kind: forge.BitbucketServer}},
			"BITBUCKET_SERVER_TOKEN", "", "Bitbucket Data Center",
			"BITBUCKET_SERVER_TOKEN is not set: run needs a Bitbucket Data Center", "BITBUCKET_SERVER_TOKEN is not set: run needs", "BITBUCKET_SERVER_TOKEN is not set: serve needs"},
		{forge.Azure, "https://dev.azure.com/contoso/Web/_git/deploy", Options{},
			"AZURE_DEVOPS_TOKEN", "imagebot", "Azure DevOps",
			"AZURE_DEVOPS_TOKEN is not set: run needs a personal access token", "AZURE_DEVOPS_TOKEN is not set: run needs", "AZURE_DEVOPS_TOKEN is not set: serve needs an Azure DevOps PAT"},
	} {
		a := tc.o.AccessFor(tc.remote)
		if a.Kind != tc.kind || a.TokenVar != tc.tokenVar || a.User != tc.user || a.Server.Name != tc.server {
			t.Errorf("%s: %+v; want %s, user %q, server %s", tc.kind, a, tc.tokenVar, tc.user, tc.server)
		}
		if a.Credentials() || a.App != nil {
			t.Errorf("%s: credentials without a token: %+v", tc.kind, a)
		}
		if err := a.Server.CheckRemote(tc.remote); err != nil {
			t.Errorf("%s: the remote it was chosen for is refused: %v", tc.kind, err)
		}
		for cmd, want := range map[Command]string{CmdRun: tc.run, CmdRollback: tc.rollback, CmdServe: tc.serve} {
			err := a.NoToken(cmd)
			if err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrNoToken) {
				t.Errorf("%s, command %d: %v; want ErrNoToken starting %q", tc.kind, cmd, err, want)
			}
			if cmd != CmdRollback || tc.kind != forge.GitHub {
				if !strings.HasSuffix(err.Error(), "--dry-run") {
					t.Errorf("%s, command %d: %v; want the way out, --dry-run", tc.kind, cmd, err)
				}
			}
		}
	}
}

// TestAccessCredentials: the host's own token (or, on GitHub, an App)
// counts; another host's does not, and an App serves GitHub only.
func TestAccessCredentials(t *testing.T) {
	app := &gitops.App{}
	o := Options{GitHub: GitHub{App: app}, GitLab: GitLab{Token: "glpat-x"}}
	if a := o.AccessFor("https://github.com/acme/gitops.git"); !a.Credentials() || a.App != app || a.Token != "" {
		t.Errorf("GitHub App: %+v", a)
	}
	o.Forge.Kind = forge.GitLab
	if a := o.AccessFor("https://gitlab.com/acme/gitops.git"); !a.Credentials() || a.App != nil || a.Token != "glpat-x" {
		t.Errorf("GitLab: %+v", a)
	}
	o.Forge.Kind = forge.Azure
	if a := o.AccessFor("https://dev.azure.com/contoso/Web/_git/deploy"); a.Credentials() {
		t.Errorf("Azure with GitLab's token: %+v", a)
	}
	// Data Center's git user is the token's, asked of the server: not
	// without a token.
	o.Forge.Kind = forge.BitbucketServer
	a := o.AccessFor("https://git.acme.example/scm/ops/gitops.git")
	if err := a.LearnUser(t.Context()); err != nil || a.User != "" {
		t.Errorf("LearnUser without a token: %q %v", a.User, err)
	}
}

// TestRollbackDryRunNoToken: rollback --dry-run has no preview; without
// the host's token it says which token that is, on GitLab GITLAB_TOKEN,
// not GitHub's.
func TestRollbackDryRunNoToken(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"init", "-q"}, {"remote", "add", "origin", "https://gitlab.com/acme/gitops.git"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	rep, err := Rollback(t.Context(), RollbackOptions{Options: Options{Repo: dir, DryRun: true}, Image: "index.docker.io/library/nginx"})
	if !errors.Is(err, ErrNoToken) || !strings.HasPrefix(err.Error(), "GITLAB_TOKEN is not set") || rep.Plan != nil {
		t.Errorf("%+v, %v; want GITLAB_TOKEN's message", rep, err)
	}
}

// TestPinForge: a flag that speaks to one host (serve's --gitlab-group)
// agrees with no --forge or the same host, and refuses another.
func TestPinForge(t *testing.T) {
	for flag, ok := range map[string]bool{"": true, "gitlab": true, "github": false, "bitbucket-server": false} {
		if err := PinForge(flag, forge.GitLab); (err == nil) != ok {
			t.Errorf("--forge %q: %v", flag, err)
		}
	}
}
