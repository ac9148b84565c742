// Package gitops turns a plan into pull requests: one branch, one commit on
// top of the default branch's tip, and one pull request per image stream,
// or per config group, promotion, pre-pull or rollback (kinds.go), whose
// branches are named for what they are.
//
// The fetched default branch is also the history that rollouts are decided
// from: Session implements internal/rollout's History (first parents,
// bounded) and Statuses (commit statuses and check runs).
//
// Open fetches the default branch's tip into memory; Session.FS is that
// commit's tree, which the caller scans and reads its config from, and
// Session.Run builds every branch on that same commit. A stale or dirty
// checkout can therefore neither fail a run nor mislead it: the user's
// checkout, its HEAD and its index are never touched, nor read beyond its
// origin URL.
//
// It keeps no state of its own. Everything a run needs to know is read back
// from the remote's branches and the pull requests' hidden markers, so a
// rerun with nothing new pushes nothing, writes nothing to the API and costs
// a constant number of API requests; a PR closed without merge means "not
// that version", and a newer version moves the open PR instead of adding
// one. Pushes are leased against the branch tips the run fetched, so a
// commit pushed meanwhile (a person's, another run's) is never overwritten;
// the very change pushed by another run counts as done. GitHub's rate
// limits are waited out up to a bound, beyond which the run stops writing
// and reports what it left for the next run. It never decides what to
// update; that is the plan's job.
//
// The git host is reached through forge.Forge (internal/gitops/forge),
// one small interface for change requests, the dashboard issue, statuses
// and who the bot is; the lifecycle speaks nothing else, and a host is one
// driver, forge/<host>/ (github, gitlab, gitea), chosen by Options.Forge
// (forge.go). Only a driver knows its host's SDK; signed commits through
// the API are GitHub's optional forge.SignedCommits capability.
//
// On GitHub it authenticates with GITHUB_TOKEN, or as a GitHub App (Options.App,
// forge/github/auth.go): ghinstallation signs the App's JWT and trades it for an
// installation token, which is the API token and the git password alike
// and is replaced, by the run's clock, well before it expires. With
// RunOptions.SignedCommits a branch's commit is made through GitHub's Git
// Data API instead of pushed (gitdata.go): GitHub authors it as the bot and
// signs it, and the tree it builds must be the very tree a push would have
// sent. No key, JWT or token ever reaches a log, an error or a PR.
package gitops
