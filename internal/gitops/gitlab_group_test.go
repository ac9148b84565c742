package gitops_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
)

// A group's projects are its own and its subgroups', archived ones and
// other groups' left out, read one request per page.
func TestGitLabGroupProjects(t *testing.T) {
	gl := gitlabtest.New(gitlabtest.WithPerPage(2))
	defer gl.Close()
	gl.AddProject("acme/gitops", "main", nil)
	gl.AddProject("acme/platform/web", "main", nil)
	gl.AddProject("acme/platform/old", "main", nil, gitlabtest.WithArchived())
	gl.AddProject("acme/platform/deep/api", "main", nil)
	gl.AddProject("acme-labs/x", "main", nil)
	gl.AddProject("other/y", "main", nil)
	o := gitops.Options{Forge: gitops.GitLab, APIURL: gl.URL(), Token: gitlabtest.DefaultToken}

	before := gl.Requests()
	urls, err := gitops.GitLabGroupProjects(context.Background(), o, "acme")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{gl.URL() + "/acme/gitops.git", gl.URL() + "/acme/platform/deep/api.git", gl.URL() + "/acme/platform/web.git"}
	if !slices.Equal(urls, want) {
		t.Errorf("acme's projects:\n got %q\nwant %q", urls, want)
	}
	if n := gl.Requests() - before; n != 2 { // 3 projects, 2 a page
		t.Errorf("%d requests for 2 pages", n)
	}

	urls, err = gitops.GitLabGroupProjects(context.Background(), o, "acme/platform/")
	if err != nil {
		t.Fatal(err)
	}
	if want := want[1:]; !slices.Equal(urls, want) {
		t.Errorf("acme/platform's projects:\n got %q\nwant %q", urls, want)
	}

	_, err = gitops.GitLabGroupProjects(context.Background(), o, "nope")
	if err == nil || !strings.Contains(err.Error(), "GitLab group nope: no such group, or the token may not see it (404)") {
		t.Errorf("unknown group: %v", err)
	}
	o.Token = "glpat-revoked"
	_, err = gitops.GitLabGroupProjects(context.Background(), o, "acme")
	if err == nil || strings.Contains(err.Error(), "glpat-revoked") || !strings.Contains(err.Error(), "401") {
		t.Errorf("bad token: %v", err)
	}
}
