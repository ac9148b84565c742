// Package gitserver serves bare git repositories over smart HTTP, the way
// github.com serves them to a bot that holds a GITHUB_TOKEN.
//
// It runs the installed git's own `git http-backend` behind net/http/cgi in an
// httptest server, so clients (go-git, the git CLI) speak the real protocol to
// a real receive-pack: refs move, non-fast-forward pushes are refused and
// packs are unpacked exactly as a remote would. Tests, testscript scenarios
// and `make demo` use it as the remote that imagebot pushes its branches to.
//
// Every request must carry the token as the password of HTTP basic auth
// (any username; GitHub Actions uses "x-access-token"). Without it the server
// answers 401 with a Basic challenge, as github.com does, so authentication
// bugs show up in tests instead of in production. CheckTokens hands that
// decision to githubfake, so that the remote takes a GitHub App's
// installation tokens while the fake API does, and refuses them once they
// expire. The token is never logged and never reaches the git subprocess.
//
// Tests fail pushes with FailPushes, and land a competing push exactly in
// the window a race would with OnNextPush: before the refs are advertised to
// a pusher, or after, before receive-pack updates them.
//
// It never pretends to be the GitHub API: pull requests live in the sibling
// package githubfake, which reads and merges branches in the same bare
// repositories.
package gitserver
