package rollout_test

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/plan"
	regclient "github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestPrevious: without --to, a rollback goes back to the tag the image had
// before the commit that brought the current one, whatever happened to
// other files and images since.
func TestPrevious(t *testing.T) {
	tests := []struct {
		name    string
		commits []commit
		tag     string
		brought string
		err     string
	}{{
		name: "one step back",
		commits: []commit{
			{"c0", 100 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.25.3"), "b.yaml": deploy("redis:7.2.4")}},
			{"c1", 50 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.0")}},
			{"c2", 10 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.1"), "b.yaml": deploy("redis:7.4.1")}},
			{"c3", 1 * time.Hour, map[string]string{"b.yaml": deploy("redis:7.4.2"), "a.yaml": deploy("nginx:1.26.1", "busybox:1.36.0")}},
		},
		tag: "1.26.0", brought: "c2",
	}, {
		name:    "always at one tag",
		commits: []commit{{"c0", time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.1")}}},
		err:     "came into the repository at 1.26.1 in commit c0",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{commits: tc.commits}
			refs := scanTip(t, h, config.Default())
			var nginx []scan.Ref
			for _, r := range refs {
				if r.Image == "docker.io/library/nginx" {
					nginx = append(nginx, r)
				}
			}
			tag, c, err := rollout.Previous(t.Context(), h, nginx)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || tag != tc.tag || c.Hash != tc.brought {
				t.Errorf("Previous = %q, %s, %v; want %q, %s", tag, c.Hash, err, tc.tag, tc.brought)
			}
		})
	}
}

// rollbackRegistry holds nginx 1.24.0, 1.25.3 and 1.26.1 and busybox
// 1.36.0, each its own image; digests maps each "image:tag" to its digest.
func rollbackRegistry(t *testing.T) (srv *registrytest.Server, digests map[string]string) {
	t.Helper()
	srv = registrytest.NewServer(t)
	digests = map[string]string{}
	for i, ref := range []string{"nginx:1.24.0", "nginx:1.25.3", "nginx:1.26.1", "busybox:1.36.0"} {
		repo, tag, _ := strings.Cut(ref, ":")
		img := registrytest.Image(t, ref, now.AddDate(0, -4+i, 0), nil)
		digests[ref] = srv.Push(t, "docker.io/library/"+repo, tag, img)
	}
	return srv, digests
}

// client is a fresh registry client (nothing cached) that reaches
// docker.io through srv, without retries or a keychain.
func client(srv *registrytest.Server) *regclient.Client {
	return regclient.NewClient(
		regclient.WithMirrors(map[string]string{"docker.io": srv.URL() + "/docker.io"}),
		regclient.WithKeychain(authn.NewMultiKeychain()),
		regclient.WithRetry(0, time.Millisecond),
	)
}

// TestRollback: the update `imagebot rollback` opens moves every tagged
// reference of the image, and only those, to the tag asked for or to the
// one before the current; a pinned reference gets the target's digest
// from the registry, and the grounds say why that tag.
func TestRollback(t *testing.T) {
	srv, digests := rollbackRegistry(t)
	h := &history{commits: []commit{
		{"c0", 100 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.25.3"), "b.yaml": deploy("nginx:1.25.3@" + digests["nginx:1.25.3"]), "c.yaml": deploy("redis:7.2.4")}},
		{"c1", 10 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.1"), "b.yaml": deploy("nginx:1.26.1@" + digests["nginx:1.26.1"])}},
		{"c2", 1 * time.Hour, map[string]string{"c.yaml": deploy("redis:7.4.1", "nginx")}},
	}}
	refs := scanTip(t, h, config.Default())
	brought := now.Add(-10 * time.Hour).UTC().Format("2006-01-02 15:04 UTC")
	tests := []struct {
		name string
		to   string
		want []string // updateLines, then each change
	}{{
		name: "the tag before the current one",
		want: []string{
			"rollback docker.io/library/nginx 1.26.1 -> 1.25.3 env= group= [a.yaml:10 b.yaml:10]\n" +
				"  `1.25.3` is the tag docker.io/library/nginx had before commit `c1` (" + brought + ") brought `1.26.1`.",
			"a.yaml:10 1.25.3",
			"b.yaml:10 1.25.3@" + digests["nginx:1.25.3"],
		},
	}, {
		name: "--to",
		to:   "1.24.0",
		want: []string{
			"rollback docker.io/library/nginx 1.26.1 -> 1.24.0 env= group= [a.yaml:10 b.yaml:10]\n" +
				"  Requested with `imagebot rollback --to 1.24.0`.",
			"a.yaml:10 1.24.0",
			"b.yaml:10 1.24.0@" + digests["nginx:1.24.0"],
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, err := rollout.Rollback(t.Context(), refs, rollout.RollbackOptions{
				Image: "docker.io/library/nginx", To: tc.to, History: h, Tip: "main@c2", Registry: client(srv),
			})
			if err != nil {
				t.Fatal(err)
			}
			if u == nil {
				t.Fatal("no update")
			}
			got := updateLines(&plan.Plan{Updates: []plan.Update{*u}})
			for _, c := range u.Changes {
				s := fmt.Sprintf("%s:%d %s", c.Ref.File, c.Ref.Line, c.Tag)
				if c.Digest != "" {
					s += "@" + c.Digest
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("update (-want +got):\n%s", diff)
			}
			if u.Type != plan.TypeRollback || u.Digest != digests["nginx:"+u.To] {
				t.Errorf("Type %q, Digest %q; want rollback and %s's digest", u.Type, u.Digest, u.To)
			}
		})
	}
}

// TestRollbackNothingToDo: references at the target already, tag and
// digest, make no update.
func TestRollbackNothingToDo(t *testing.T) {
	srv, digests := rollbackRegistry(t)
	h := &history{commits: []commit{
		{"c0", time.Hour, map[string]string{"a.yaml": deploy("nginx:1.25.3", "nginx:1.25.3@"+digests["nginx:1.25.3"])}},
	}}
	u, err := rollout.Rollback(t.Context(), scanTip(t, h, config.Default()), rollout.RollbackOptions{
		Image: "docker.io/library/nginx", To: "1.25.3", History: h, Tip: "main@c0", Registry: client(srv),
	})
	if err != nil || u != nil {
		t.Errorf("Rollback = %+v, %v; want nil, nil", u, err)
	}
}

// TestRollbackRefused: what a rollback refuses says why, naming the image,
// the tag and where it looked; a registry that does not answer is a
// *LookupError (worth trying again), a tag it does not have is not.
func TestRollbackRefused(t *testing.T) {
	srv, _ := rollbackRegistry(t)
	h := &history{commits: []commit{
		{"c0", 2 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.25.3"), "p.yaml": deploy("busybox:1.36.0@sha256:" + strings.Repeat("ab", 32))}},
		{"c1", time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.1")}},
	}}
	refs := scanTip(t, h, config.Default())
	tests := []struct {
		name, image, to string
		fail            string // path the registry fails with a 500
		err             string
		lookup          bool
	}{
		{name: "no reference", image: "docker.io/library/redis", err: "docker.io/library/redis has no tagged reference on main@c1"},
		{name: "not in the registry", image: "docker.io/library/nginx", to: "1.99.0", err: "docker.io/library/nginx:1.99.0 is not in the registry: nodes could not pull it"},
		{name: "no earlier tag", image: "docker.io/library/busybox", err: "docker.io/library/busybox came into the repository at 1.36.0 in commit c0"},
		{name: "listing fails", image: "docker.io/library/nginx", to: "1.24.0", fail: "/library/nginx/tags/list", err: "look up docker.io/library/nginx: ", lookup: true},
		{name: "digest fails", image: "docker.io/library/busybox", to: "1.36.0", fail: "HEAD /v2/docker.io/library/busybox/manifests/", err: "digest of docker.io/library/busybox:1.36.0: ", lookup: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv.Reset()
			if tc.fail != "" {
				srv.Fail(tc.fail, http.StatusInternalServerError, 0, nil)
			}
			u, err := rollout.Rollback(t.Context(), refs, rollout.RollbackOptions{
				Image: tc.image, To: tc.to, History: h, Tip: "main@c1", Registry: client(srv),
			})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Rollback = %+v, %v; want an error with %q", u, err, tc.err)
			}
			var lookup *rollout.LookupError
			if errors.As(err, &lookup) != tc.lookup {
				t.Errorf("%v: a *LookupError is %v, want %v", err, !tc.lookup, tc.lookup)
			}
		})
	}
}
