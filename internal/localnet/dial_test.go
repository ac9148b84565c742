package localnet_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/imagebot/imagebot/internal/localnet"
	"github.com/imagebot/imagebot/internal/testing/dnstest"
)

// TestGuardChecksTheDialledAddress: a name that resolves to this machine
// (as an /etc/hosts entry or a cluster's DNS would make it) is refused
// when dialled, although its spelling is not local; the config's hosts,
// and requests vouched for, are dialled wherever they resolve.
func TestGuardChecksTheDialledAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	names := map[string]string{"metadata.corp.test": "127.0.0.1", "svc.cluster.test": "127.0.0.1"}
	ctx := localnet.WithResolver(t.Context(), dnstest.Resolver(names))
	get := func(t *testing.T, g *localnet.Guard, host string, vouch bool) error {
		t.Helper()
		c := &http.Client{Transport: g.Transport(http.DefaultTransport.(*http.Transport))}
		rctx := ctx
		if vouch {
			rctx = localnet.Vouch(ctx)
		}
		req, _ := http.NewRequestWithContext(rctx, http.MethodGet, "http://"+net.JoinHostPort(host, port)+"/", nil)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if localnet.Is("metadata.corp.test") {
		t.Fatal("the name is local by its spelling: the test proves nothing")
	}
	before := hits.Load()
	err := get(t, localnet.NewGuard(nil), "metadata.corp.test", false)
	var de *localnet.DialError
	if !errors.As(err, &de) || !errors.Is(err, localnet.ErrLocal) {
		t.Errorf("a name resolving to loopback: %v, want a *DialError", err)
	}
	if hits.Load() != before {
		t.Error("the refused address received a request")
	}
	if err := get(t, localnet.NewGuard([]string{"svc.cluster.test:" + port}), "svc.cluster.test", false); err != nil {
		t.Errorf("a host the config names: %v", err)
	}
	if err := get(t, localnet.NewGuard(nil), "svc.cluster.test", true); err != nil {
		t.Errorf("a request vouched for: %v", err)
	}
	if err := get(t, localnet.NewGuard([]string{"svc.cluster.test"}), "svc.cluster.test", false); err == nil {
		t.Error("a host named without a port was dialled on another port than 80 or 443")
	}
}
