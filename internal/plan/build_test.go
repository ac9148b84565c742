package plan_test

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
)

const zeros = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// wantProblem is a problem as the tests compare it: Message is a substring.
type wantProblem struct {
	Loc     string // "file:line"
	Message string
	Failed  bool
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		policies map[string]policy.Spec
		// fail makes the registry answer requests matching this
		// "METHOD path" substring with 404.
		fail string
		// want is computed from the registry's digests.
		want         func(r *testRegistry) []summary
		wantProblems []wantProblem
	}{{
		name: "one update per image, from and to; locations sorted",
		files: map[string]string{
			"b.yaml":     pod("busybox:1.36.0", "nginx:1.25.3"),
			"a.yaml":     pod("docker.io/library/busybox:1.36.0", "nginx:1.25.3-alpine"),
			"sub/c.yaml": pod("index.docker.io/library/nginx:1.25.3", "busybox:1.36.1"),
		},
		want: func(*testRegistry) []summary {
			return []summary{{
				Image: "docker.io/library/busybox", From: "1.36.0", To: "1.37.0", Type: "minor",
				Locations: []string{"a.yaml:8", "b.yaml:8"},
				Changes:   []string{"a.yaml:8 1.37.0@", "b.yaml:8 1.37.0@"},
			}, {
				Image: "docker.io/library/busybox", From: "1.36.1", To: "1.37.0", Type: "minor",
				Locations: []string{"sub/c.yaml:10"},
				Changes:   []string{"sub/c.yaml:10 1.37.0@"},
			}, {
				Image: "docker.io/library/nginx", From: "1.25.3", To: "1.26.1", Type: "minor",
				Locations: []string{"b.yaml:10", "sub/c.yaml:8"},
				Changes:   []string{"b.yaml:10 1.26.1@", "sub/c.yaml:8 1.26.1@"},
			}, {
				Image: "docker.io/library/nginx", From: "1.25.3-alpine", To: "1.26.1-alpine", Type: "minor",
				Locations: []string{"a.yaml:10"},
				Changes:   []string{"a.yaml:10 1.26.1-alpine@"},
			}}
		},
	}, {
		name: "a pinned reference gets the new tag and the new digest",
		files: map[string]string{
			"a.yaml": pod("redis:7.2.4-alpine@"+zeros, "redis:7.2.4-alpine"),
		},
		want: func(r *testRegistry) []summary {
			d := r.digest(t, "docker.io/library/redis", "7.4.1-alpine")
			return []summary{{
				Image: "docker.io/library/redis", From: "7.2.4-alpine", To: "7.4.1-alpine", Type: "minor", Digest: d,
				Locations: []string{"a.yaml:8", "a.yaml:10"},
				// The unpinned reference stays unpinned.
				Changes: []string{"a.yaml:8 7.4.1-alpine@" + d, "a.yaml:10 7.4.1-alpine@"},
			}}
		},
	}, {
		name: "digest-only updates: a stale pin, and pin: digest",
		files: map[string]string{
			"a.yaml": pod("redis:7.4.1-alpine@"+zeros, "ghcr.io/acme/api:v1.8.2"),
		},
		policies: map[string]policy.Spec{"ghcr.io/acme/api": {Pin: "digest"}},
		want: func(r *testRegistry) []summary {
			api := r.digest(t, "ghcr.io/acme/api", "v1.8.2")
			redis := r.digest(t, "docker.io/library/redis", "7.4.1-alpine")
			return []summary{{
				Image: "docker.io/library/redis", From: "7.4.1-alpine", To: "7.4.1-alpine", Type: "digest", Digest: redis,
				Locations: []string{"a.yaml:8"},
				Changes:   []string{"a.yaml:8 @" + redis},
			}, {
				Image: "ghcr.io/acme/api", From: "v1.8.2", To: "v1.8.2", Type: "digest", Digest: api,
				Locations: []string{"a.yaml:10"},
				Changes:   []string{"a.yaml:10 @" + api},
			}}
		},
	}, {
		name: "a reference pinned to the current digest is no update",
		files: map[string]string{
			"a.yaml": pod("redis:7.4.1-alpine@DIGEST"),
		},
		want: func(*testRegistry) []summary { return []summary{} },
	}, {
		name: "a failed lookup is a Failed problem and the other images still move",
		files: map[string]string{
			"a.yaml": pod("nginx:1.25.3", "ghcr.io/acme/missing:1.0.0"),
			"b.yaml": pod("ghcr.io/acme/missing:1.0.0", "ghcr.io/acme/api:v1.7.0"),
		},
		want: func(*testRegistry) []summary {
			return []summary{{
				Image: "docker.io/library/nginx", From: "1.25.3", To: "1.26.1", Type: "minor",
				Locations: []string{"a.yaml:8"}, Changes: []string{"a.yaml:8 1.26.1@"},
			}, {
				Image: "ghcr.io/acme/api", From: "v1.7.0", To: "v1.8.2", Type: "minor",
				Locations: []string{"b.yaml:10"}, Changes: []string{"b.yaml:10 v1.8.2@"},
			}}
		},
		wantProblems: []wantProblem{{Loc: "a.yaml:10", Message: "ghcr.io/acme/missing", Failed: true}},
	}, {
		name: "a failed digest lookup fails only that image",
		files: map[string]string{
			"a.yaml": pod("redis:7.2.4-alpine@"+zeros, "nginx:1.25.3"),
		},
		fail: "HEAD /v2/docker.io/library/redis/manifests/",
		want: func(*testRegistry) []summary {
			return []summary{{
				Image: "docker.io/library/nginx", From: "1.25.3", To: "1.26.1", Type: "minor",
				Locations: []string{"a.yaml:10"}, Changes: []string{"a.yaml:10 1.26.1@"},
			}}
		},
		wantProblems: []wantProblem{{Loc: "a.yaml:8", Message: "digest of docker.io/library/redis:7.4.1-alpine", Failed: true}},
	}, {
		name: "skip leaves an image alone",
		files: map[string]string{
			"a.yaml": pod("ghcr.io/acme/frozen:3.1.0", "ghcr.io/acme/worker:build-9"),
		},
		policies: map[string]policy.Spec{"ghcr.io/acme/frozen": {Skip: true}},
		want: func(*testRegistry) []summary {
			return []summary{{
				Image: "ghcr.io/acme/worker", From: "build-9", To: "build-11", Type: "major",
				Locations: []string{"a.yaml:10"}, Changes: []string{"a.yaml:10 build-11@"},
			}}
		},
	}, {
		name: "untagged references, digest-only references and floating tags are left alone",
		files: map[string]string{
			"a.yaml": pod("nginx", "busybox@"+zeros, "nginx:stable", "nginx:latest", "redis:7-alpine", "nginx:1.26.1"),
		},
		want: func(*testRegistry) []summary { return []summary{} },
	}, {
		name: "a floating tag pinned by digest keeps its tag and refreshes its digest",
		files: map[string]string{
			"a.yaml": pod("nginx:stable@" + zeros),
		},
		want: func(r *testRegistry) []summary {
			d := r.digest(t, "docker.io/library/nginx", "stable")
			return []summary{{
				Image: "docker.io/library/nginx", From: "stable", To: "stable", Type: "digest", Digest: d,
				Locations: []string{"a.yaml:8"}, Changes: []string{"a.yaml:8 @" + d},
			}}
		},
	}, {
		name: "pin: tag turns latest and untagged into one versioned update",
		files: map[string]string{
			"b.yaml": pod("busybox"),
			"a.yaml": pod("busybox:latest"),
		},
		policies: map[string]policy.Spec{"docker.io/library/busybox": {Pin: "tag"}},
		want: func(*testRegistry) []summary {
			return []summary{{
				Image: "docker.io/library/busybox", From: "latest", To: "1.37.0", Type: "pin",
				Locations: []string{"a.yaml:8", "b.yaml:8"},
				Changes:   []string{"a.yaml:8 1.37.0@", "b.yaml:8 1.37.0@"},
			}}
		},
	}, {
		name: "pin: tag with no versioned tag on the same digest is a problem, not a failure",
		files: map[string]string{
			"a.yaml": pod("nginx:mainline"),
		},
		policies:     map[string]policy.Spec{"docker.io/library/nginx": {Pin: "tag"}},
		want:         func(*testRegistry) []summary { return []summary{} },
		wantProblems: []wantProblem{{Loc: "a.yaml:8", Message: "pin docker.io/library/nginx:mainline: no versioned tag has the same digest"}},
	}, {
		name: "templates are not problems; unparseable files are",
		files: map[string]string{
			"chart/templates/deploy.yaml": "spec:\n  image: \"{{ .Values.image }}\"\n",
			"odd/broken.yaml":             "kind: Pod\nspec:\n  containers:\n    - name: a\n      image: nginx:1.25.3\n     - name: b\n",
			"ok.yaml":                     pod("nginx:1.25.5"),
		},
		want: func(*testRegistry) []summary {
			return []summary{{
				Image: "docker.io/library/nginx", From: "1.25.5", To: "1.26.1", Type: "minor",
				Locations: []string{"ok.yaml:8"}, Changes: []string{"ok.yaml:8 1.26.1@"},
			}}
		},
		wantProblems: []wantProblem{{Loc: "odd/broken.yaml:6", Message: "not valid YAML"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			reg := newRegistry(t, seed)
			if tc.fail != "" {
				reg.Fail(tc.fail, http.StatusNotFound, 0, nil)
			}
			// A reference to the current digest is spelt DIGEST in the table.
			files := map[string]string{}
			for name, content := range tc.files {
				files[name] = strings.ReplaceAll(content, "@DIGEST", "@"+reg.digest(t, "docker.io/library/redis", "7.4.1-alpine"))
			}
			p, err := plan.Build(t.Context(), scanFiles(t, files), plan.Options{
				Registry: reg.client(),
				Policy:   policies(t, tc.policies),
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want(reg), summarize(p)); diff != "" {
				t.Errorf("updates (-want +got):\n%s", diff)
			}
			var got []wantProblem
			for _, pr := range p.Problems {
				got = append(got, wantProblem{Loc: pr.File + ":" + strconv.Itoa(pr.Line), Message: pr.Message, Failed: pr.Failed})
			}
			if diff := cmp.Diff(tc.wantProblems, got, cmp.Comparer(func(want, got wantProblem) bool {
				return want.Loc == got.Loc && want.Failed == got.Failed &&
					(strings.Contains(got.Message, want.Message) || strings.Contains(want.Message, got.Message))
			})); diff != "" {
				t.Errorf("problems (-want +got; messages compared by substring):\n%s", diff)
			}
		})
	}
}

// TestBuildDeterministic: the plan does not depend on how many images are
// looked up at once, and Progress counts every image once.
func TestBuildDeterministic(t *testing.T) {
	reg := newRegistry(t, seed)
	res := scanFiles(t, map[string]string{
		"a.yaml": pod("nginx:1.25.3", "busybox:1.36.0", "redis:7.2.4-alpine@"+zeros, "ghcr.io/acme/api:v1.7.0"),
		"b.yaml": pod("ghcr.io/acme/worker:build-9", "nginx:1.25.3-alpine", "busybox:1.36.0", "ghcr.io/acme/missing:1"),
	})
	var first []summary
	for _, n := range []int{1, 2, 8} {
		var calls, last, total int
		p, err := plan.Build(t.Context(), res, plan.Options{
			Registry:    reg.client(),
			Policy:      policies(t, nil),
			Concurrency: n,
			Progress:    func(done, tot int) { calls++; last, total = done, tot },
		})
		if err != nil {
			t.Fatal(err)
		}
		got := summarize(p)
		if first == nil {
			first = got
		} else if diff := cmp.Diff(first, got); diff != "" {
			t.Errorf("concurrency %d: plan differs from concurrency 1 (-1 +%d):\n%s", n, n, diff)
		}
		// nginx, busybox, redis, api, worker, missing.
		if calls != 6 || last != 6 || total != 6 {
			t.Errorf("concurrency %d: Progress called %d times, last (%d, %d); want 6 times, last (6, 6)", n, calls, last, total)
		}
	}
}

func TestBuildCanceled(t *testing.T) {
	reg := newRegistry(t, seed)
	res := scanFiles(t, map[string]string{"a.yaml": pod("nginx:1.25.3")})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	p, err := plan.Build(ctx, res, plan.Options{Registry: reg.client(), Policy: policies(t, nil)})
	if err == nil {
		t.Fatalf("Build with a canceled context: no error, plan %+v", p)
	}
}

// TestBuildPolicyError: an image whose policy does not compile is a problem
// at its first reference, and does not stop the others.
func TestBuildPolicyError(t *testing.T) {
	reg := newRegistry(t, seed)
	res := scanFiles(t, map[string]string{"a.yaml": pod("nginx:1.25.3", "busybox:1.36.0")})
	pols := policies(t, nil)
	p, err := plan.Build(t.Context(), res, plan.Options{
		Registry: reg.client(),
		Policy: func(img, file string) (*policy.Policy, error) {
			if img == "docker.io/library/busybox" {
				return policy.New(policy.Spec{Allow: "sometimes"})
			}
			return pols(img, file)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Updates) != 1 || p.Updates[0].Image != "docker.io/library/nginx" {
		t.Errorf("updates: %+v, want only nginx", summarize(p))
	}
	if len(p.Problems) != 1 || p.Problems[0].Line != 10 || p.Problems[0].Failed ||
		!strings.Contains(p.Problems[0].Message, "docker.io/library/busybox") {
		t.Errorf("problems: %+v, want one (not Failed) at a.yaml:10 naming docker.io/library/busybox", p.Problems)
	}
}

// TestBuildScopes: references of one image in files with different
// policies (a policy with paths) are decided apart, and scopes that decide
// alike make one update.
func TestBuildScopes(t *testing.T) {
	reg := newRegistry(t, seed)
	res := scanFiles(t, map[string]string{
		"prod/a.yaml": pod("nginx:1.25.3", "busybox:1.36.0"),
		"dev/a.yaml":  pod("nginx:1.25.3", "busybox:1.36.0"),
		"test/a.yaml": pod("nginx:1.25.3"),
	})
	dev := func(file string) bool { return !strings.HasPrefix(file, "prod/") }
	patch, err := policy.New(policy.Spec{Allow: "patch"})
	if err != nil {
		t.Fatal(err)
	}
	pols := policies(t, nil)
	p, err := plan.Build(t.Context(), res, plan.Options{
		Registry: reg.client(),
		Scope: func(img, file string) string {
			if img == "docker.io/library/nginx" {
				return path.Dir(file) // dev and test decide alike
			}
			return ""
		},
		Policy: func(img, file string) (*policy.Policy, error) {
			if img == "docker.io/library/nginx" && !dev(file) {
				return patch, nil
			}
			return pols(img, file)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range p.Updates {
		var files []string
		for _, l := range u.Locations {
			files = append(files, l.File)
		}
		got = append(got, fmt.Sprintf("%s %s->%s %v", u.Image, u.From, u.To, files))
	}
	want := []string{
		"docker.io/library/busybox 1.36.0->1.37.0 [dev/a.yaml prod/a.yaml]",
		"docker.io/library/nginx 1.25.3->1.25.5 [prod/a.yaml]",
		"docker.io/library/nginx 1.25.3->1.26.1 [dev/a.yaml test/a.yaml]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
}
