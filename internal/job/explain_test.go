package job

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestFailuresExplainedOnEveryHost: a pull request the host refused (a
// token without the write permission or scope) is said in the run's
// failures in one line, after the branch it failed on, naming the host's
// variable and what to grant, by one rule on every host (GitHub's
// workflow token as much as the others); a failure that is not a refusal
// stays as it was, and every host --forge accepts has its explain
// function.
func TestFailuresExplainedOnEveryHost(t *testing.T) {
	want := map[gitops.Kind]string{
		gitops.GitHub:         "GitHub refused the token on acme/gitops (403 Resource not accessible by integration): a workflow's GITHUB_TOKEN needs permissions contents: write, pull-requests: write",
		gitops.GitLab:         "refused GITLAB_TOKEN on acme/gitops",
		gitops.Gitea:          "refused the token (403 Resource not accessible by integration): give it the write:repository and write:issue scopes",
		forge.Bitbucket:       "refused BITBUCKET_TOKEN on acme/gitops (403 ",
		forge.BitbucketServer: "refused BITBUCKET_SERVER_TOKEN on acme/gitops (403 ",
		forge.Azure:           "refused AZURE_DEVOPS_TOKEN on acme/gitops (403 ",
	}
	for _, k := range forge.Kinds {
		t.Run(string(k), func(t *testing.T) {
			w, ok := want[k]
			if !ok {
				t.Fatalf("%s: no per-PR refusal checked for this host", k)
			}
			c := gitops.Options{Forge: k, Repository: "acme/gitops", APIURL: "https://forge.example/api", URL: "https://forge.example/acme/gitops.git", Token: azurePAT}
			refused := fmt.Errorf("imagebot/docker.io-library-nginx: create pull request: %w",
				&forge.HTTPError{Status: http.StatusForbidden, Message: "Resource not accessible by integration", Err: errors.New("Resource not accessible by integration")})
			other := errors.New("imagebot/docker.io-library-redis: push: connection reset")
			res := &gitops.Result{Failed: []error{refused, other}}
			explainFailures(res, c)
			if got := res.Failed[0].Error(); !strings.HasPrefix(got, "imagebot/docker.io-library-nginx: ") || !strings.Contains(got, w) || strings.Contains(got, "\n") || !errors.Is(res.Failed[0], refused) {
				t.Errorf("refused: %q, want %q", got, w)
			}
			if res.Failed[1] != other {
				t.Errorf("other: %v, want it as it was", res.Failed[1])
			}
			if k == gitops.GitHub {
				res := &gitops.Result{Failed: []error{refused}}
				explainFailures(res, gitops.Options{Repository: "acme/gitops"}) // "" is GitHub
				if !strings.Contains(res.Failed[0].Error(), w) {
					t.Errorf("no --forge: %v", res.Failed[0])
				}
			}
		})
	}
}
