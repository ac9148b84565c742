package chartrepo_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/testing/dnstest"
	"github.com/imagebot/imagebot/internal/testing/helmrepotest"
)

// TestLocalNameNotDialled: a plain-HTTP chart repository whose name
// resolves to this machine (an /etc/hosts entry, a cluster's DNS) is
// refused for the address dialled, without a request, unless the config
// names its host (issue 25, item 4).
func TestLocalNameNotDialled(t *testing.T) {
	repo := helmrepotest.New(t, charts())
	port := repo.URL[strings.LastIndex(repo.URL, ":")+1:]
	host := "charts.svc.cluster.test:" + port
	ctx := localnet.WithResolver(t.Context(), dnstest.Resolver(map[string]string{"charts.svc.cluster.test": "127.0.0.1"}))

	_, err := chartrepo.New(chartrepo.WithLocalHosts(nil)).Versions(ctx, "http://"+host, "nginx")
	if !errors.Is(err, chartrepo.ErrLocalHost) || !strings.Contains(err.Error(), "resolves to 127.0.0.1") || repo.Requests() != 0 {
		t.Fatalf("err %v after %d requests, want it refused for its address, without a request", err, repo.Requests())
	}
	if _, err := chartrepo.New(chartrepo.WithLocalHosts([]string{host})).Versions(ctx, "http://"+host, "nginx"); err != nil {
		t.Errorf("named in the config: %v", err)
	}
}
