// Package gitea is the Gitea and Forgejo driver (Codeberg included): a
// forge.Forge through the Gitea SDK (code.gitea.io/sdk/gitea). It imports
// no other driver and not the lifecycle; its errors are forge's
// (forge.HTTPError, forge.ErrIssuesOff, *forge.RateLimitError).
package gitea
