package dnstest_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/testing/dnstest"
)

func TestResolver(t *testing.T) {
	r := dnstest.Resolver(map[string]string{"charts.corp.test": "127.0.0.1", "v6.corp.test": "::1"})
	for name, want := range map[string]string{"charts.corp.test": "127.0.0.1", "v6.corp.test": "::1"} {
		addrs, err := r.LookupHost(t.Context(), name)
		if err != nil || len(addrs) != 1 || addrs[0] != want {
			t.Errorf("LookupHost(%s) = %v, %v; want %s", name, addrs, err, want)
		}
	}
	if addrs, err := r.LookupHost(t.Context(), "nowhere.corp.test"); err == nil {
		t.Errorf("LookupHost(nowhere) = %v, want an error", addrs)
	}
}
