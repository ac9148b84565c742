package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/adopt"
)

// repoURL finds the links into imagebot's own repository.
var repoURL = regexp.MustCompile(`https://github\.com/imagebot/imagebot(/blob/main/[^\s#)"]+)?(#[^\s)"]+)?`)

// TestGeneratedConfigLinks: the links in the config that init and
// onboarding write (on every host) point at a file of this repository,
// and an anchor at a heading of it.
func TestGeneratedConfigLinks(t *testing.T) {
	fsys := fstest.MapFS{"app.yaml": {Data: []byte("kind: Pod\nspec:\n  containers:\n    - image: ghcr.io/acme/api:1.2.3\n")}}
	for _, o := range []adopt.Options{{ActionRef: "v1"}, {GitLab: true}, {ActionRef: "v1", Runner: adopt.OnGitea}} {
		res, err := adopt.Init(t.Context(), fsys, o)
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, m := range repoURL.FindAllStringSubmatch(string(res.Config), -1) {
			if m[1] == "" && m[2] == "" {
				continue // the repository itself
			}
			found++
			target := strings.TrimPrefix(m[1], "/blob/main/")
			if target == "" {
				target = "README.md"
			}
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
				t.Errorf("%s: no %s in the repository", m[0], target)
				continue
			}
			if frag := strings.TrimPrefix(m[2], "#"); frag != "" && !readPage(t, target).anchors[frag] {
				t.Errorf("%s: %s has no heading with the id %q", m[0], target, frag)
			}
		}
		if found == 0 {
			t.Errorf("the generated config links to no page of imagebot's:\n%s", res.Config)
		}
	}
}

// TestComparisonSaysCharts: the comparison with other tools has a row for
// Helm chart versions, which imagebot reads, and never says it reads none.
func TestComparisonSaysCharts(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root, "docs", "comparison.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	if !regexp.MustCompile(`(?m)^\| Helm chart versions \| yes`).MatchString(s) {
		t.Error("docs/comparison.md has no row \"| Helm chart versions | yes ...\"")
	}
	if strings.Contains(s, "no Helm chart versions") {
		t.Error("docs/comparison.md says imagebot reads no Helm chart versions")
	}
	for _, host := range []string{"GitHub", "GitLab", "Gitea", "Forgejo"} {
		if !regexp.MustCompile(`(?m)^\| Git hosts \| [^|]*` + host).MatchString(s) {
			t.Errorf("docs/comparison.md's Git hosts row for imagebot does not name %s", host)
		}
	}
}
