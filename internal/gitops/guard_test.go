package gitops_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/testing/dnstest"
)

// TestForgeClientChecksTheDialledAddress: the API client dials the hosts
// the operator named (the API's, the remote's) wherever they resolve, a
// self-hosted forge on the office network included, and any other name
// that resolves to this machine or its networks not at all, without
// retrying (issue 25, item 4).
func TestForgeClientChecksTheDialledAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx := localnet.WithResolver(t.Context(), dnstest.Resolver(map[string]string{
		"gitlab.corp.test": "127.0.0.1", "metadata.corp.test": "127.0.0.1",
	}))
	api := "http://gitlab.corp.test:" + port
	c := gitops.APIHTTPClient(gitops.Options{Forge: gitops.GitLab, APIURL: api, URL: api + "/acme/app.git"}, api)
	get := func(u string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(api + "/api/v4/projects"); err != nil {
		t.Errorf("the API's own host: %v", err)
	}
	before := hits.Load()
	err := get("http://metadata.corp.test:" + port + "/latest/meta-data/")
	var de *localnet.DialError
	if !errors.As(err, &de) {
		t.Errorf("a name resolving to loopback: %v, want a *localnet.DialError", err)
	}
	if hits.Load() != before {
		t.Error("the refused address received a request")
	}
}
