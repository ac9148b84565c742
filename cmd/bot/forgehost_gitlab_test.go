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
	sh := serveHostOf(o, jo)
	if !sh.gitlab || sh.token != "glpat-x" || sh.user != "oauth2" || sh.tokenVar != "GITLAB_TOKEN" || sh.host.Name != "GitLab" {
		t.Fatalf("serveHostOf = %+v", sh)
	}
	if err := checkServeHosts(o, sh.host); err != nil {
		t.Errorf("clone on the instance: %v", err)
	}
	o.Clones = append(o.Clones, "https://github.com/acme/other.git")
	if err := checkServeHosts(o, sh.host); err == nil || !strings.Contains(err.Error(), "not on the GitLab server gitlab.example.com") {
		t.Errorf("clone on github.com: %v", err)
	}

	// Without --forge, GitLab CI's variables say so.
	jo = &job.Options{Forge: job.Forge{Env: job.ForgeEnv{GitLabServerURL: "https://gitlab.example.com"}}, GitLab: job.GitLab{Token: "glpat-x", ServerURL: "https://gitlab.example.com"}}
	if sh := serveHostOf(&serveOptions{Clones: o.Clones[:1]}, jo); !sh.gitlab || sh.host.URL != "https://gitlab.example.com" {
		t.Errorf("in GitLab CI: %+v", sh)
	}
	// On GitHub nothing changed.
	jo = &job.Options{GitHub: job.GitHub{Token: "ghs-y"}}
	if sh := serveHostOf(&serveOptions{Clones: []string{"https://github.com/acme/gitops.git"}}, jo); sh.gitlab || sh.token != "ghs-y" || sh.user != "" {
		t.Errorf("on GitHub: %+v", sh)
	}
}
