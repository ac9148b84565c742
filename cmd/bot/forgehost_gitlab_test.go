package main

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// TestServeHostGitLab: serve --clone with GitLab remotes clones with
// GITLAB_TOKEN as user oauth2, checked against the GitLab instance's host:
// a clone URL elsewhere is refused before anything is sent.
func TestServeHostGitLab(t *testing.T) {
	o := &serveOptions{Clones: []string{"https://gitlab.example.com/acme/platform/gitops.git"}}
	jo := &job.Options{Forge: job.Forge{Kind: gitops.GitLab, URL: "https://gitlab.example.com"},
		GitLab: job.GitLab{Token: "glpat-x"}, GitHub: job.GitHub{Token: "ghs-y"}}
	acc := serveAccess(o, jo)
	if acc.Kind != gitops.GitLab || acc.Token != "glpat-x" || acc.User != "oauth2" || acc.TokenVar != "GITLAB_TOKEN" || acc.Server.Name != "GitLab" || acc.App != nil {
		t.Fatalf("serveAccess = %+v", acc)
	}
	if err := checkServeHosts(o, acc.Server); err != nil {
		t.Errorf("clone on the instance: %v", err)
	}
	o.Clones = append(o.Clones, "https://github.com/acme/other.git")
	if err := checkServeHosts(o, acc.Server); err == nil || !strings.Contains(err.Error(), "not on the GitLab server gitlab.example.com") {
		t.Errorf("clone on github.com: %v", err)
	}

	// Without --forge, GitLab CI's variables say so.
	jo = &job.Options{Forge: job.Forge{Env: job.ForgeEnv{GitLabServerURL: "https://gitlab.example.com"}}, GitLab: job.GitLab{Token: "glpat-x", ServerURL: "https://gitlab.example.com"}}
	if acc := serveAccess(&serveOptions{Clones: o.Clones[:1]}, jo); acc.Kind != gitops.GitLab || acc.Server.URL != "https://gitlab.example.com" {
		t.Errorf("in GitLab CI: %+v", acc)
	}
	// On GitHub nothing changed.
	jo = &job.Options{GitHub: job.GitHub{Token: "ghs-y"}}
	if acc := serveAccess(&serveOptions{Clones: []string{"https://github.com/acme/gitops.git"}}, jo); acc.Kind != gitops.GitHub || acc.Token != "ghs-y" || acc.User != "" {
		t.Errorf("on GitHub: %+v", acc)
	}
}
