package gittest

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/memory"
)

// TestRequireMultiACK: a server that behaves as Azure Repos refuses
// go-git's default fetch, which does not ask for multi_ack (its
// transport.UnsupportedCapabilities); forge/azure's tests show the
// driver's workaround fetching from it.
func TestRequireMultiACK(t *testing.T) {
	s := newTestServer(t, newInProcessServer)
	s.RequireMultiACK()
	_, err := git.Clone(memory.NewStorage(), nil, &git.CloneOptions{URL: s.URL("acme/apps"), Auth: auth})
	if err == nil || !strings.Contains(err.Error(), "status code: 400") {
		t.Fatalf("go-git's default clone: %v, want the server's refusal", err)
	}
}
