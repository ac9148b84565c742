package gitlab_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/gitlab"
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
	o := forge.Config{APIURL: gl.URL(), Token: gitlabtest.DefaultToken}

	before := gl.Requests()
	urls, err := gitlab.GroupProjects(context.Background(), o, "acme")
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

	urls, err = gitlab.GroupProjects(context.Background(), o, "acme/platform/")
	if err != nil {
		t.Fatal(err)
	}
	if want := want[1:]; !slices.Equal(urls, want) {
		t.Errorf("acme/platform's projects:\n got %q\nwant %q", urls, want)
	}

	_, err = gitlab.GroupProjects(context.Background(), o, "nope")
	if err == nil || !strings.Contains(err.Error(), "GitLab group nope: no such group, or the token may not see it (404)") {
		t.Errorf("unknown group: %v", err)
	}
	o.Token = "glpat-revoked"
	_, err = gitlab.GroupProjects(context.Background(), o, "acme")
	if err == nil || strings.Contains(err.Error(), "glpat-revoked") || !strings.Contains(err.Error(), "401") {
		t.Errorf("bad token: %v", err)
	}
}

// A group listing whose next page links back (a proxy that drops the page
// parameter, a bug) is an error after two requests, not a loop until the
// deadline: the group listing pages through forge.Pages like every other.
func TestGitLabGroupLinksBack(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		page := r.URL.Query().Get("page")
		next := "2"
		if page == "2" {
			next = "1"
		}
		w.Header().Set("X-Page", page)
		w.Header().Set("X-Next-Page", next)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `[{"id":%s,"http_url_to_repo":"%s/acme/p%s.git"}]`, page, "http://"+r.Host, page)
	}))
	defer srv.Close()
	o := forge.Config{APIURL: srv.URL, Token: "glpat-t0ken"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := gitlab.GroupProjects(ctx, o, "acme")
	if err == nil || !strings.Contains(err.Error(), "list the projects of GitLab group acme: page 2 links back to page 1") {
		t.Errorf("GitLabGroupProjects = %v, want a link-back error", err)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}
