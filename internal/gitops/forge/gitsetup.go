package forge

import "sync"

// gitSetups are what a driver needs done to the process's git client
// before its remotes are cloned or fetched (Azure Repos: go-git's
// multi_ack workaround), registered by the driver, which alone may link
// git; run does it when it opens the host, serve before its first clone.
var gitSetups sync.Map // Kind -> func()

// RegisterGitSetup makes setup what SetUpGit(kind) runs. setup must be
// safe to run more than once.
func RegisterGitSetup(kind Kind, setup func()) { gitSetups.Store(kind, setup) }

// SetUpGit prepares git for kind's remotes, if its driver asks to.
func SetUpGit(kind Kind) {
	if f, ok := gitSetups.Load(kind); ok {
		f.(func())()
	}
}
