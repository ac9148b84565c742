package gitops_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/registry/registrytest"
)

// images is a registry holding each repository's tags, and a repository
// whose file i references refs[i] (host-relative, "acme/a-b:1.0.0").
func images(t *testing.T, tags map[string][]string, refs ...string) (map[string][]byte, map[string]string, string) {
	t.Helper()
	reg := registrytest.NewServer(t)
	created := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	for repo, ts := range tags {
		for _, tag := range ts {
			reg.Push(t, repo, tag, registrytest.Image(t, repo+":"+tag, created, nil))
		}
	}
	files := map[string][]byte{"README.md": []byte("services\n")}
	for i, ref := range refs {
		files[fmt.Sprintf("services/svc-%03d.yaml", i)] = []byte(deploymentOf(reg.Host() + "/" + ref))
	}
	return files, nil, reg.Host()
}

func deploymentOf(image string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: " + image + "\n"
}

// Two images whose names sanitise to one branch (acme/a-b, acme-a/b) each
// get a branch and a PR of their own, each with its own change; a rerun
// changes nothing.
func TestCollidingImageNamesGetBranchesOfTheirOwn(t *testing.T) {
	t.Parallel()
	files, mirrors, host := images(t, map[string][]string{
		"acme/a-b": {"1.0.0", "1.1.0"},
		"acme-a/b": {"1.0.0", "1.1.0"},
	}, "acme/a-b:1.0.0", "acme-a/b:1.0.0")
	w := newWorld(t, withRepo(files, mirrors))
	res := w.runClean(t)
	if len(res.Opened) != 2 {
		t.Fatalf("opened %v, want two PRs", res.Opened)
	}
	open := w.openPRs()
	if len(open) != 2 {
		t.Fatalf("open PRs on %v, want two branches", keys(open))
	}
	for _, img := range []string{"acme/a-b", "acme-a/b"} {
		n := 0
		for b, pr := range open {
			if strings.Contains(pr.Body, `"image":"`+host+"/"+img+`"`) {
				n++
				if !strings.HasPrefix(b, "imagebot/"+strings.ReplaceAll(host, ":", "-")+"-acme-a-b-") {
					t.Errorf("branch %s: want the readable name and a hash", b)
				}
			}
		}
		if n != 1 {
			t.Errorf("%s is on %d open PRs, want 1", img, n)
		}
	}
	before := w.counters()
	res = w.runClean(t)
	if len(res.Unchanged) != 2 || w.counters() != before {
		t.Errorf("rerun: %+v, writes %+v -> %+v", res, before, w.counters())
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
