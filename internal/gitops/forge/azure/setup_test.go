package azure_test

import (
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
)

// TestSetUpGit: the driver registers its multi_ack workaround, so that
// serve, which clones before any repository is opened, applies it by
// Kind alone (forge.SetUpGit). Run alone (-run TestSetUpGit), it fails
// without the registration; cmd/bot's serve_clone_azure.txtar proves it
// against a server that refuses go-git's default fetch.
func TestSetUpGit(t *testing.T) {
	forge.SetUpGit(azure.Kind)
	if slices.Contains(transport.UnsupportedCapabilities, capability.MultiACK) || slices.Contains(transport.UnsupportedCapabilities, capability.MultiACKDetailed) {
		t.Errorf("go-git still leaves multi_ack out: %v", transport.UnsupportedCapabilities)
	}
}
