package adopt

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rhysd/actionlint"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestWorkflowLints runs actionlint on the workflows init writes, with and
// without the ghcr.io permission and the secrets' env comment.
func TestWorkflowLints(t *testing.T) {
	for name, hosts := range map[string][]*host{
		"public":  {{name: "docker.io"}},
		"private": {{name: "ghcr.io"}, {name: "registry.acme.example:5000"}},
	} {
		t.Run(name, func(t *testing.T) {
			wf, err := workflow("v1.2.3", "0 4 * * 1", hosts)
			if err != nil {
				t.Fatal(err)
			}
			l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			errs, err := l.Lint(WorkflowPath, wf, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				t.Errorf("%d:%d: %s [%s]\n%s", e.Line, e.Column, e.Message, e.Kind, wf)
			}
			if !strings.Contains(string(wf), "uses: imagebot/imagebot@v1.2.3\n") {
				t.Errorf("workflow does not use the Action at v1.2.3:\n%s", wf)
			}
			if got := strings.Contains(string(wf), "REGISTRY_ACME_EXAMPLE_TOKEN: ${{ secrets.REGISTRY_ACME_EXAMPLE_TOKEN }}"); got != (name == "private") {
				t.Errorf("secrets env comment present = %v, want %v:\n%s", got, name == "private", wf)
			}
		})
	}
}

// TestWorkflowPinsAsExample: the workflow init writes uses the third-party
// actions at the commits .github/examples/imagebot.yml pins, and passes
// --cache to the directory the cache step keeps, as the example does.
func TestWorkflowPinsAsExample(t *testing.T) {
	example, err := os.ReadFile(filepath.Join("..", "..", ".github", "examples", "imagebot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := workflow("v1", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	uses := func(b []byte) []string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if _, u, ok := strings.Cut(l, "uses: actions/"); ok {
				out = append(out, u)
			}
		}
		return out
	}
	if diff := cmp.Diff(uses(example), uses(wf)); diff != "" {
		t.Errorf("actions used (-example +init):\n%s", diff)
	}
	for _, want := range []string{"path: ${{ runner.temp }}/imagebot-cache", "args: --cache ${{ runner.temp }}/imagebot-cache"} {
		if !strings.Contains(string(example), want) || !strings.Contains(string(wf), want) {
			t.Errorf("%q is not in both the example and the workflow init writes:\n%s", want, wf)
		}
	}
}

// TestGiteaWorkflowLints: the workflows for Gitea's and Forgejo's Actions,
// which run GitHub-style workflows, lint as GitHub's do, hand the Action
// GITEA_TOKEN from a secret, and on Forgejo name each action by its
// GitHub URL (Forgejo resolves bare names on its own mirror).
func TestGiteaWorkflowLints(t *testing.T) {
	for _, runner := range []string{OnGitea, OnForgejo} {
		t.Run(runner, func(t *testing.T) {
			wf, err := workflowFor("v1.2.3", "", []*host{{name: "docker.io"}}, runner)
			if err != nil {
				t.Fatal(err)
			}
			l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			errs, err := l.Lint(workflowPath(runner), wf, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range errs {
				// GitHub knows no action URLs; Forgejo's Actions take them.
				if runner == OnForgejo && e.Kind == "action" && strings.Contains(e.Message, `"https://github.com/`) {
					continue
				}
				t.Errorf("%d:%d: %s [%s]\n%s", e.Line, e.Column, e.Message, e.Kind, wf)
			}
			if !strings.Contains(string(wf), "GITEA_TOKEN: ${{ secrets.IMAGEBOT_TOKEN }}") {
				t.Errorf("no GITEA_TOKEN for the Action:\n%s", wf)
			}
			uses := "uses: imagebot/imagebot@v1.2.3\n"
			if runner == OnForgejo {
				uses = "uses: https://github.com/imagebot/imagebot@v1.2.3\n"
			}
			if !strings.Contains(string(wf), uses) {
				t.Errorf("workflow lacks %q:\n%s", uses, wf)
			}
		})
	}
}

// TestWorkflowMayKeepTheDashboard: a workflow's permissions list leaves
// every permission it does not name at none, so the workflow init writes
// names each one a run uses: without issues: write, GitHub refuses the
// dashboard issue (403) under the workflow's GITHUB_TOKEN.
func TestWorkflowMayKeepTheDashboard(t *testing.T) {
	wf, err := workflow("v1.2.3", "0 4 * * 1", []*host{{name: "docker.io"}})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Permissions map[string]string `yaml:"permissions"`
	}
	if err := yaml.Unmarshal(wf, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"contents": "write", "pull-requests": "write", "issues": "write"}
	for k, v := range want {
		if doc.Permissions[k] != v {
			t.Errorf("permissions %s: %q, want %q:\n%s", k, doc.Permissions[k], v, wf)
		}
	}
}
