// Package github is the GitHub driver (github.com and GitHub Enterprise
// Server, at any URL): a forge.Forge of pull requests through go-github,
// authenticated with a token or as a GitHub App (ghinstallation), and the
// Git Data API for signed commits (forge.SignedCommits). It imports no
// other driver and not the lifecycle.
package github
