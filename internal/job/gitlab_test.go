package job

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gitlabtest"
)

// TestExplainGitLab: GitLab's refusals end in one line naming the
// instance and what to do: a revoked token (401), a project the token
// cannot see (404), a read_api token or a Reporter (403, which the CI job
// token also gets), and an instance whose CA this machine does not trust.
func TestExplainGitLab(t *testing.T) {
	ctx := context.Background()
	gl := gitlabtest.New(gitlabtest.WithUser("reader", "glpat-read", gitlabtest.Developer, "read_api"),
		gitlabtest.WithUser("reporter", "glpat-reporter", gitlabtest.Reporter),
		gitlabtest.WithUser("old", "glpat-old", gitlabtest.Maintainer))
	defer gl.Close()
	gl.AddProject("acme/gitops", "main", githubtest.BareRepos(func(string, string) string { return t.TempDir() }))
	host := strings.TrimPrefix(gl.URL(), "http://")
	conn := func(token, project string) gitops.Options {
		return gitops.Options{Forge: gitops.GitLab, APIURL: gl.URL(), Token: token, Repository: project, URL: gl.URL() + "/" + project + ".git"}
	}
	open := func(c gitops.Options) error {
		s, err := gitops.Open(ctx, c)
		if err == nil {
			s.Close()
		}
		return explainGitLab(err, c)
	}
	create := func(token string) error {
		f, err := forge.Open(ctx, forge.GitLab, forge.Config{APIURL: gl.URL(), Token: token, Repository: "acme/gitops", HTTPClient: &http.Client{}})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = f.CreateChange(ctx, forge.NewChange{Title: "t", Head: "imagebot/x", Base: "main"})
		return explainGitLab(err, conn(token, "acme/gitops"))
	}

	tls := httptest.NewTLSServer(http.NotFoundHandler())
	defer tls.Close()
	private := conn("glpat-x", "acme/gitops")
	private.APIURL = tls.URL
	private.HTTPClient = &http.Client{} // no retries: a TLS failure is the answer

	gl.Revoke("glpat-old")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"unknown token", open(conn("glpat-mistyped", "acme/gitops")),
			"GitLab at " + host + " rejected GITLAB_TOKEN (401 Unauthorized): it is expired, revoked or mistyped; create a new project or group access token with the api scope"},
		{"revoked token", open(conn("glpat-old", "acme/gitops")),
			"rejected GITLAB_TOKEN (401 invalid_token: Token was revoked. You have to re-authorize from the user.)"},
		{"no such project", open(conn(gitlabtest.DefaultToken, "acme/nothing")),
			"GitLab at " + host + " has no project acme/nothing that this token can see (404): check CI_PROJECT_PATH"},
		{"read_api", create("glpat-read"),
			"GitLab at " + host + " refused GITLAB_TOKEN on acme/gitops (403 insufficient_scope: The request requires higher privileges than provided by the access token.)"},
		{"reporter", create("glpat-reporter"), "(403 Forbidden): give the token the api scope and at least the Developer role " +
			"(a read_api token, a Reporter, or the CI job token CI_JOB_TOKEN cannot open merge requests)"},
		{"private CA", open(private), "presented a certificate from an authority this machine does not trust: point SSL_CERT_FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var pe *PartialError
			if errors.As(tc.err, &pe) || !strings.Contains(tc.err.Error(), tc.want) {
				t.Errorf("got %v\nwant it to say %q", tc.err, tc.want)
			}
			if strings.Contains(tc.err.Error(), "\n") {
				t.Errorf("more than one line: %q", tc.err)
			}
		})
	}
}
