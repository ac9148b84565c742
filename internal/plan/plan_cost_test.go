package plan_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/gate/inspect"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// pageSize forces every repository of seed with more than two tags to be
// listed over several pages, so "one listing" has to mean all its pages.
const pageSize = 2

// costFiles is a repository of many references over several repositories:
// nginx referenced many times, api on the newest tag already, redis pinned
// by digest, busybox on latest under pin: tag, worker under pin: digest,
// frozen skipped, and a few untagged references.
func costFiles(r *testRegistry) map[string]string {
	files := map[string]string{}
	redis := "redis:7.2.4-alpine@" + r.digests["docker.io/library/redis:7.2.4-alpine"]
	for i := range 40 {
		imgs := []string{"nginx:1.25.3", "ghcr.io/acme/api:v1.8.2"}
		switch i % 5 {
		case 0:
			imgs = append(imgs, redis, "busybox:latest")
		case 1:
			imgs = append(imgs, "nginx:1.25.3-alpine", "ghcr.io/acme/worker:build-9")
		case 2:
			imgs = append(imgs, "ghcr.io/acme/frozen:3.1.0", "busybox")
		case 3:
			imgs = append(imgs, "docker.io/library/nginx:1.26.1", "nginx")
		case 4:
			imgs = append(imgs, "index.docker.io/library/redis:7.4.1-alpine@"+r.digests["docker.io/library/redis:7.4.1-alpine"])
		}
		files[fmt.Sprintf("apps/app%02d/deploy.yaml", i)] = pod(imgs...)
	}
	return files
}

var costPolicies = map[string]policy.Spec{
	"docker.io/library/busybox": {Pin: "tag"},
	"ghcr.io/acme/worker":       {Pin: "digest"},
	"ghcr.io/acme/frozen":       {Skip: true},
}

// TestBuildCost checks what DESIGN.md's "Registry cost" promises, on a real
// registry that counts requests: one tags listing (all its pages) per
// repository and Build; no manifest request for plain tags; digests by HEAD
// only, and only for pinned references and pin policies. The gates and the
// dangling check, wired in but asked for by no policy, add nothing.
func TestBuildCost(t *testing.T) {
	reg := newRegistry(t, seed, registrytest.WithPageSize(pageSize))
	res := scanFiles(t, costFiles(reg))
	if len(res.Refs) < 150 {
		t.Fatalf("scan found %d references, want at least 150", len(res.Refs))
	}

	// Each Build gets a fresh client, as each run does: the counts are per
	// Build, not thanks to a cache warmed by an earlier one.
	for run := range 2 {
		reg.Reset()
		// The production wiring: with an Inspector, but no policy asks
		// for a gate.
		c := reg.client()
		p, err := plan.Build(t.Context(), res, plan.Options{
			Registry:  c,
			Inspector: inspect.New(c),
			Policy:    policies(t, costPolicies),
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Problems) != 0 {
			t.Fatalf("run %d: problems: %+v", run, p.Problems)
		}

		// One listing per repository, every page of it; none for the
		// skipped one.
		for _, repo := range []string{
			"docker.io/library/nginx", "docker.io/library/busybox", "docker.io/library/redis",
			"ghcr.io/acme/api", "ghcr.io/acme/worker", "ghcr.io/acme/frozen",
		} {
			starts, pages := listings(reg.Requests(), repo)
			wantStarts, wantPages := 1, pagesOf(repo)
			if repo == "ghcr.io/acme/frozen" {
				wantStarts, wantPages = 0, 0
			}
			if starts != wantStarts || pages != wantPages {
				t.Errorf("run %d: %s: %d listings in %d requests, want %d in %d", run, repo, starts, pages, wantStarts, wantPages)
			}
		}

		// Manifests: HEAD only, each tag once, and only these.
		want := []string{
			"HEAD docker.io/library/busybox:1.37.0", // pin: tag candidate
			"HEAD docker.io/library/busybox:latest", // pin: tag, what latest is today
			"HEAD docker.io/library/redis:7.4.1-alpine",
			// The pinned digest the update replaces: still served, or
			// the reference is dangling until the update is merged.
			"HEAD docker.io/library/redis:" + reg.digests["docker.io/library/redis:7.2.4-alpine"],
			"HEAD ghcr.io/acme/worker:build-11", // pin: digest
		}
		slices.Sort(want)
		if diff := cmp.Diff(want, manifestRequests(reg.Requests())); diff != "" {
			t.Errorf("run %d: manifest requests (-want +got):\n%s", run, diff)
		}
		for _, r := range reg.Requests() {
			if strings.Contains(r.Path, "/blobs/") {
				t.Errorf("run %d: blob request %s %s: plan needs no image config without WithInfo", run, r.Method, r.Path)
			}
		}

		// pin: tag resolved latest to the versioned tag with its digest.
		var pinned *plan.Update
		for i, u := range p.Updates {
			if u.Image == "docker.io/library/busybox" {
				pinned = &p.Updates[i]
			}
		}
		if pinned == nil || pinned.From != "latest" || pinned.To != "1.37.0" || pinned.Type != "pin" {
			t.Fatalf("run %d: busybox update %+v, want latest -> 1.37.0 (pin)", run, pinned)
		}
		if reg.digests["docker.io/library/busybox:latest"] != reg.digests["docker.io/library/busybox:1.37.0"] {
			t.Fatal("seed: busybox latest and 1.37.0 differ")
		}
		// 8 busybox:latest and 8 untagged busybox references.
		if len(pinned.Locations) != 16 {
			t.Errorf("run %d: busybox pin has %d locations, want 16", run, len(pinned.Locations))
		}
	}
}

// TestBuildCostPlainTags: a repository whose references are all plain tags
// (with or without an update) costs no manifest request at all.
func TestBuildCostPlainTags(t *testing.T) {
	reg := newRegistry(t, seed, registrytest.WithPageSize(pageSize))
	files := map[string]string{}
	for i := range 30 {
		files[fmt.Sprintf("m%02d.yaml", i)] = pod("nginx:1.25.3", "nginx:1.26.1", "busybox:1.36.0",
			"redis:7.4.1-alpine", "ghcr.io/acme/api:v1.8.2", "ghcr.io/acme/worker:build-9", "nginx:stable")
	}
	c := reg.client()
	p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
		Registry:  c,
		Inspector: inspect.New(c),
		Policy:    policies(t, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 3 {
		t.Errorf("updates: %+v, want nginx, busybox and worker", summarize(p))
	}
	if got := manifestRequests(reg.Requests()); len(got) != 0 {
		t.Errorf("manifest requests for plain tags: %v, want none", got)
	}
	for _, repo := range []string{"docker.io/library/nginx", "docker.io/library/busybox", "docker.io/library/redis", "ghcr.io/acme/api", "ghcr.io/acme/worker"} {
		if starts, pages := listings(reg.Requests(), repo); starts != 1 || pages != pagesOf(repo) {
			t.Errorf("%s: %d listings in %d requests, want 1 in %d", repo, starts, pages, pagesOf(repo))
		}
	}
}

// listings counts, for one repository, the tag listings started (requests
// without ?last=) and the requests made in all (every page).
func listings(reqs []registrytest.Request, repo string) (starts, pages int) {
	path := "/v2/" + repo + "/tags/list"
	for _, r := range reqs {
		if r.Method != http.MethodGet || r.Path != path {
			continue
		}
		pages++
		if q, _ := url.ParseQuery(r.Query); q.Get("last") == "" {
			starts++
		}
	}
	return starts, pages
}

// pagesOf is how many pages of pageSize tags repo's listing takes.
func pagesOf(repo string) int {
	n := 0
	for _, g := range seed[repo] {
		n += len(g)
	}
	return (n + pageSize - 1) / pageSize
}

// manifestRequests lists the manifest requests as "METHOD repo:tag", sorted.
func manifestRequests(reqs []registrytest.Request) []string {
	var out []string
	for _, r := range reqs {
		repo, ref, ok := strings.Cut(strings.TrimPrefix(r.Path, "/v2/"), "/manifests/")
		if !ok {
			continue
		}
		out = append(out, r.Method+" "+repo+":"+ref)
	}
	slices.Sort(out)
	return out
}
