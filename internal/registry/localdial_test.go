package registry_test

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/dnstest"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestLocalNameFromManifestNotDialled: a registry named in a manifest by a
// name that resolves to this machine (an /etc/hosts entry, a cluster's
// DNS) is not contacted, as if it were spelled 127.0.0.1; named in the
// config, it is looked up (issue 25, item 4).
func TestLocalNameFromManifestNotDialled(t *testing.T) {
	srv := registrytest.NewServer(t)
	pushTags(t, srv, "acme/api", "v1.0.0")
	_, port, _ := net.SplitHostPort(srv.Host())
	host := "registry.svc.cluster.test:" + port
	ctx := localnet.WithResolver(t.Context(), dnstest.Resolver(map[string]string{"registry.svc.cluster.test": "127.0.0.1"}))

	c := newClient(registry.WithLocalHosts(nil), registry.WithRetry(4, 0))
	_, err := c.Tags(ctx, registrytest.Repo(t, host+"/acme/api"))
	if !errors.Is(err, registry.ErrLocalHost) || !strings.Contains(err.Error(), "resolves to 127.0.0.1") {
		t.Errorf("Tags: %v, want it refused for the address it resolves to", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the registry received %d requests, want none", n)
	}

	named := newClient(registry.WithLocalHosts([]string{host}), registry.WithMirrors(map[string]string{host: "http://" + host}))
	tags, err := named.Tags(ctx, registrytest.Repo(t, host+"/acme/api"))
	if err != nil || len(tags) != 1 {
		t.Errorf("named in the config: %v, %v; want its tags", tags, err)
	}
}
