// Package hosts links every git host's driver into a program: import it
// for its side effect (`import _ ".../forge/hosts"`) where the program is
// put together (cmd/bot, and the tests that run against the fake hosts),
// so that forge.Open finds them. Nothing else imports a driver.
package hosts

import (
	_ "github.com/imagebot/imagebot/internal/gitops/forge/azure"
	_ "github.com/imagebot/imagebot/internal/gitops/forge/bitbucket"
	_ "github.com/imagebot/imagebot/internal/gitops/forge/gitea"
	_ "github.com/imagebot/imagebot/internal/gitops/forge/github"
	_ "github.com/imagebot/imagebot/internal/gitops/forge/gitlab"
)
