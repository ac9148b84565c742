package plan_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitsource"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// gitRepos is the gitsource client as the plan asks it (internal/job has
// the same adapter).
type gitRepos struct {
	c     *gitsource.Client
	lists map[string]int
}

func (g gitRepos) List(ctx context.Context, repoURL string) (plan.GitListing, error) {
	g.lists[repoURL]++
	l, err := g.c.List(ctx, repoURL)
	out := plan.GitListing{Branches: l.Branches}
	for _, t := range l.Tags {
		out.Tags = append(out.Tags, plan.GitTag{Name: t.Name, Commit: t.Commit})
	}
	return out, err
}

func (g gitRepos) Serves(ctx context.Context, u string) (bool, error) { return g.c.Serves(ctx, u) }

// gitWorld is a forge on this machine holding argoproj/argo-rollouts with
// tags v1.7.2 and v1.8.0 and a branch release-1.7, whose v1.8.0 release
// serves install.yaml but not crds.yaml.
func gitWorld(t *testing.T) (base string, git gitRepos, fetches func() int) {
	t.Helper()
	gs, err := gittest.New("", "tok")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gs.Close)
	if _, err := gs.CreateRepo("argoproj", "argo-rollouts", map[string][]byte{"x": []byte("x")}, "release-1.7"); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"v1.7.2", "v1.8.0"} {
		if _, err := gs.Tag("argoproj", "argo-rollouts", tag, tag == "v1.8.0"); err != nil {
			t.Fatal(err)
		}
	}
	forge, _ := gs.Forge("/argoproj/argo-rollouts/releases/download/v1.8.0/install.yaml")
	t.Cleanup(forge.Close)
	u, _ := url.Parse(forge.URL)
	c := gitsource.New(gitsource.WithLocalHosts([]string{u.Host}),
		gitsource.WithCredentials(map[string]gitsource.Credentials{u.Host: {Username: "x", Password: "tok"}}))
	return forge.URL, gitRepos{c: c, lists: map[string]int{}}, gs.Fetches
}

// TestBuildGitSources: every shape of git tag moves to v1.8.0 by the
// stream rule; a branch is a notice; a release asset moves only where
// v1.8.0 serves it; each repository is listed once.
func TestBuildGitSources(t *testing.T) {
	base, git, fetches := gitWorld(t)
	repo := base + "/argoproj/argo-rollouts"
	res := scanFiles(t, map[string]string{
		"flux.yaml": fmt.Sprintf(`apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: %s.git, ref: {tag: v1.7.2}}
`, repo),
		"argo.yaml": fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
spec:
  sources:
    - {repoURL: %[1]s, path: manifests, targetRevision: v1.7.2}
    - {repoURL: %[1]s, path: manifests, targetRevision: release-1.7}
`, repo),
		"kustomization.yaml": fmt.Sprintf(`resources:
  - %[1]s.git//manifests?ref=v1.7.2
  - %[1]s/releases/download/v1.7.2/install.yaml
  - %[1]s/releases/download/v1.7.2/crds.yaml
`, repo),
	})
	p, err := plan.Build(t.Context(), res, plan.Options{Git: git, Policy: policies(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	match := strings.TrimPrefix(repo, "http://")
	var got []string
	for _, u := range p.Updates {
		got = append(got, fmt.Sprintf("update %s %s %s->%s %s", u.Kind, u.Image, u.From, u.To, strings.Join(summarize(&plan.Plan{Updates: []plan.Update{u}})[0].Changes, ",")))
	}
	for _, n := range p.Notices {
		got = append(got, fmt.Sprintf("notice %s:%d %s %s", n.File, n.Line, n.Reason, n.Tag))
	}
	for _, pr := range p.Problems {
		got = append(got, "problem "+pr.Message)
	}
	want := []string{
		"update git " + match + " v1.7.2->v1.8.0 argo.yaml:5 v1.8.0@,flux.yaml:3 v1.8.0@,kustomization.yaml:2 v1.8.0@,kustomization.yaml:3 v1.8.0@",
		"notice argo.yaml:6 not-a-tag release-1.7",
		"notice kustomization.yaml:4 no-asset v1.7.2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if fetches() != 1 || len(git.lists) != 1 {
		t.Errorf("%d advertisements (%v), want 1 for the one repository", fetches(), git.lists)
	}
}

// TestBuildGitSourceDown: a repository that cannot be listed is a failed
// problem naming its URL; the rest of the plan goes on.
func TestBuildGitSourceDown(t *testing.T) {
	_, git, _ := gitWorld(t)
	res := scanFiles(t, map[string]string{
		"flux.yaml": `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
spec: {url: "http://127.0.0.1:1/acme/gone.git", ref: {tag: v1.0.0}}
`,
	})
	p, err := plan.Build(t.Context(), res, plan.Options{Git: git, Policy: policies(t, nil)})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Problems) != 1 || !p.Problems[0].Failed || !strings.Contains(p.Problems[0].Message, "http://127.0.0.1:1/acme/gone") ||
		!strings.Contains(p.Problems[0].Message, "not contacted") {
		t.Errorf("problems %+v, want one naming the repository, a local host named only in a manifest", p.Problems)
	}
}
