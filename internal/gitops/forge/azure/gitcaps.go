package azure

import (
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

var multiACK sync.Once

// AllowMultiACK is go-git's documented workaround for Azure Repos
// (_examples/azure_devops): Azure Repos refuses a fetch that does not ask
// for multi_ack or multi_ack_detailed, which go-git leaves out while they
// are on transport.UnsupportedCapabilities. Taking them off makes go-git
// ask for them; its answer reader takes the ACK lines they bring (go-git
// 5.11 and later). The list is go-git's, for the whole process: the
// first Azure DevOps repository opened sets it, before its first fetch
// (and forge.SetUpGit(Kind), which serve calls before it clones),
// and every host is fetched so from then on, which GitHub, GitLab and
// Gitea serve as git's own upload-pack does.
func AllowMultiACK() {
	multiACK.Do(func() {
		transport.UnsupportedCapabilities = slices.DeleteFunc(slices.Clone(transport.UnsupportedCapabilities), func(c capability.Capability) bool {
			return c == capability.MultiACK || c == capability.MultiACKDetailed
		})
	})
}
