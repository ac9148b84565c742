// Package gittest serves bare git repositories over smart HTTP, the way
// github.com serves them to a bot that holds a GITHUB_TOKEN.
//
// New answers in process with go-git's server side, over bare repositories
// on disk that git itself reads (githubtest merges in them with the git
// CLI): no process per request, which is what lets the tests' large
// scenario matrix run in seconds. Where imagebot relies on the remote it
// behaves as receive-pack does: a ref is updated only if it still holds
// the value the pusher saw (a lease cannot be overtaken), creates and
// deletes are checked the same way, atomic pushes land whole or not at
// all, and pushed objects are stored loose. NewHTTPBackend runs the
// installed git's own `git http-backend` behind net/http/cgi instead: the
// real receive-pack and upload-pack, for the end-to-end tests that hold the
// in-process server to git's behaviour, for shallow fetches, and for the
// git CLI as a client. Every test of this package runs on both;
// IMAGEBOT_GITSERVER=http-backend makes New the backend everywhere
// (`make test-all`). Tests, testscript scenarios and `make demo` use it as
// the remote that imagebot pushes its branches to.
//
// Every request must carry the token as the password of HTTP basic auth
// (any username; GitHub Actions uses "x-access-token"). Without it the server
// answers 401 with a Basic challenge, as github.com does, so authentication
// bugs show up in tests instead of in production. CheckTokens hands that
// decision to githubtest, so that the remote takes a GitHub App's
// installation tokens while the fake API does, and refuses them once they
// expire. The token is never logged and never reaches the git subprocess.
//
// Tests fail pushes with FailPushes, and land a competing push exactly in
// the window a race would with OnNextPush: before the refs are advertised to
// a pusher, or after, before receive-pack updates them.
//
// It never pretends to be the GitHub API: pull requests live in the sibling
// package githubtest, which reads and merges branches in the same bare
// repositories.
package gittest
