package plan_test

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// memRegistry is an in-memory registry holding repos acme/svc00 ... with
// tags 1.0.0 and 1.1.0, for tests in a synctest bubble; it returns the
// digests of 1.1.0.
func memRegistry(t *testing.T, repos int, opts ...registrytest.Option) (*registrytest.Server, []string) {
	t.Helper()
	srv := registrytest.NewServer(t, append(opts, registrytest.InMemory())...)
	var digests []string
	for i := range repos {
		srv.Push(t, fmt.Sprintf("acme/svc%02d", i), "1.0.0", registrytest.Image(t, fmt.Sprintf("%d-0", i), time.Time{}, nil))
		digests = append(digests, srv.Push(t, fmt.Sprintf("acme/svc%02d", i), "1.1.0",
			registrytest.Image(t, fmt.Sprintf("%d-1", i), time.Time{}, nil)))
	}
	return srv, digests
}

// pinnedFiles references each repository of host once, pinned by digest,
// so that each costs a listing and a HEAD.
func pinnedFiles(host string, digests []string) map[string]string {
	files := map[string]string{}
	for i, d := range digests {
		files[fmt.Sprintf("%s/svc%02d.yaml", host, i)] = pod(fmt.Sprintf("%s/acme/svc%02d:1.0.0@%s", host, i, d))
	}
	return files
}

// TestBuildOverlapsLookups: the listing of one repository and the HEAD of
// another share the registry's slots; Build keeps every slot busy, so a
// plan takes one probe plus ceil(requests / slots) round trips. With the
// images limited to 8 at a time, 16 slots would sit half empty (220ms).
func TestBuildOverlapsLookups(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, digests := memRegistry(t, 40, registrytest.WithLatency(20*time.Millisecond))
		res := scanFiles(t, pinnedFiles("ghcr.io", digests))
		c := registry.NewClient(registry.WithKeychain(authn.NewMultiKeychain()),
			registry.WithTransport(registrytest.Transport(srv)),
			registry.WithMirrors(map[string]string{"ghcr.io": srv.URL()}),
			registry.WithConcurrency(16))
		start := time.Now()
		p, err := plan.Build(t.Context(), res, plan.Options{Registry: c, Policy: policies(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Updates) != 40 || len(p.Problems) != 0 {
			t.Fatalf("plan: %d updates, problems %+v", len(p.Updates), p.Problems)
		}
		// 1 probe, then 40 listings and 40 HEADs over 16 slots.
		if took := time.Since(start); took != 20*time.Millisecond+5*20*time.Millisecond {
			t.Errorf("Build took %s, want 120ms", took)
		}
	})
}

// TestBuildWithADeadRegistry: the images of a registry that never
// answers fail within about a minute, each a Failed problem naming its
// file and line; the images of another registry are planned as usual.
func TestBuildWithADeadRegistry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dead, deadDigests := memRegistry(t, 10)
		alive, aliveDigests := memRegistry(t, 10)
		dead.Break("/v2/", registrytest.Hang, 0)
		files := pinnedFiles("ghcr.io", deadDigests)
		for name, content := range pinnedFiles("quay.io", aliveDigests) {
			files[name] = content
		}
		res := scanFiles(t, files)
		c := registry.NewClient(registry.WithKeychain(authn.NewMultiKeychain()),
			registry.WithTransport(registrytest.Transport(dead, alive)),
			registry.WithMirrors(map[string]string{"ghcr.io": dead.URL(), "quay.io": alive.URL()}))
		start := time.Now()
		p, err := plan.Build(t.Context(), res, plan.Options{Registry: c, Policy: policies(t, nil)})
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > time.Minute {
			t.Errorf("Build took %s, want about a minute at most", took)
		}
		if len(p.Updates) != 10 {
			t.Errorf("updates: %d, want the 10 of the live registry", len(p.Updates))
		}
		for _, u := range p.Updates {
			if !strings.HasPrefix(u.Image, "quay.io/") {
				t.Errorf("update of %s", u.Image)
			}
		}
		if len(p.Problems) != 10 {
			t.Fatalf("problems: %+v, want one per image of the dead registry", p.Problems)
		}
		for _, pr := range p.Problems {
			if !pr.Failed || !strings.HasPrefix(pr.File, "ghcr.io/") || pr.Line == 0 || !strings.Contains(pr.Message, "is down") {
				t.Errorf("problem %+v, want a Failed lookup naming its file, line and the dead registry", pr)
			}
		}
	})
}
