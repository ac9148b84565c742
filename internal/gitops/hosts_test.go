package gitops_test

import (
	ctx "context"
	"net/http"

	"code.gitea.io/sdk/gitea"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/testing/giteatest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

// host is a git host's fake as the lifecycle scenarios drive it: it serves
// the repository's API in front of the world's git remote (gittest), and
// does what people and other tools do there. Each Forge implementation
// has one, in hosts; the scenarios that range over hosts (eachHost) run on
// every one of them, so that a new host is a new row, not copies.
type host interface {
	// kind is what gitops.Options.Forge says for it.
	kind() gitops.Kind
	// apiURL is its API's root, as gitops.Options.APIURL.
	apiURL() string
	// bot is the login the token the world hands out acts as.
	bot() string
	// changes are every PR or MR of the repository, oldest first.
	changes() []hostPR
	// close closes one without merging, as a person declines it; merge
	// merges it into the default branch.
	close(number int) error
	merge(number int) error
	// postStatus posts a commit status, as Flux or a CI job does.
	postStatus(sha, context, state string) error
	// postCheck posts a completed CI check with its conclusion
	// ("success", "failure"): GitHub's check run, a pipeline's job on
	// GitLab.
	postCheck(sha, name, conclusion string) error
	// openAs opens a PR or MR as login from head into base ("" the
	// default branch), as a person does: from the repository's own
	// branch, or, fromFork, from login's fork's branch of that name.
	openAs(login, head, base, title, body string, fromFork bool) (int, error)
	// issues are the repository's issues; openIssue opens one as login,
	// editIssue changes its title ("" leaves it) or body, as a person
	// ticking a dashboard box does.
	issues() []hostIssue
	openIssue(login, title, body string) (int, error)
	editIssue(number int, title string, body *string) error
	// requests and writes count the API requests it answered, and those
	// of them that changed something.
	requests() int
	writes() int
	// noOpRequests is what a rerun with nothing to do costs with open
	// PRs open: the repository, who the bot is where that costs a
	// request (whoAmI), and the pages of its open PRs.
	noOpRequests(open int) int
	// whoAmI is what asking who the bot is costs, once a run: 1 where the
	// host is asked (GET /user), 0 where the token says (GitHub's
	// installation tokens, the world's).
	whoAmI() int
	// caps is what the host has of what the lifecycle can use.
	caps() hostCaps
}

// hostCaps is what a host has of what the lifecycle can use. A scenario
// that needs what a host lacks checks what the lifecycle does there
// instead (the run says "dashboard off" once; the PR goes without labels),
// never skips the host.
type hostCaps struct {
	// issues: an issue tracker, where the dashboard is an issue. Without
	// one (Bitbucket Data Center, Azure DevOps) every run says in one
	// line that the dashboard is off, and writes no issue.
	issues bool
	// issueLabels: issues have labels, by which a dashboard whose marker
	// a person deleted is still found (not Bitbucket Cloud's).
	issueLabels bool
	// labels: pull requests have labels (Bitbucket has none).
	labels bool
	// teamReviewers: a team can be asked for review (not on GitLab or
	// Bitbucket, where the team is left out with a warning).
	teamReviewers bool
	// draftAutoMerge: a draft can be set to merge itself once ready
	// (GitHub's auto-merge is no draft's; Bitbucket Cloud has none).
	draftAutoMerge bool
}

// full is a host with all of it: GitHub, Gitea.
var full = hostCaps{issues: true, issueLabels: true, labels: true, teamReviewers: true, draftAutoMerge: true}

// hostPR is a PR or MR as the scenarios check it.
type hostPR struct {
	Number                   int
	Author                   string
	Title, Body, Head, Base  string
	HeadRepo                 string // a fork's "owner/name"; "" for the repository's own
	State                    string // "open" or "closed"
	Merged, Draft, AutoMerge bool
	Labels, Reviewers        []string
	TeamReviewers, Comments  []string
	HeadSHA                  string
}

// hostIssue is an issue as the dashboard scenarios check it.
type hostIssue struct {
	Number        int
	Author, Title string
	Body, State   string
	Labels        []string
}

// hostMaker starts a host's fake for a world whose remote is gs.
type hostMaker struct {
	name  string
	start func(t *testing.T, w *world, wc *worldConfig) host
}

// hosts are the hosts every lifecycle scenario runs on.
var hosts = []hostMaker{
	{"github", startGitHub},
	{"gitea", startGitea},
	{"gitlab", startGitLab},
	bitbucketMaker,
	bitbucketDCMaker,
	azureMaker,
}

// onHost makes the world on h; the default is hosts[0].
func onHost(h hostMaker) worldOption { return func(c *worldConfig) { c.host = h } }

// eachHost runs scenario on every host, as a subtest named for it; on
// makes the scenario's worlds on that host.
func eachHost(t *testing.T, scenario func(t *testing.T, on worldOption)) {
	t.Helper()
	for _, h := range hosts {
		t.Run(h.name, func(t *testing.T) { scenario(t, onHost(h)) })
	}
}

// withPerPage makes the host's listings pages of n, so that a few PRs
// take several pages.
func withPerPage(n int) worldOption { return func(c *worldConfig) { c.perPage = n } }

// withIssuesOff turns the repository's issues off.
func withIssuesOff() worldOption { return func(c *worldConfig) { c.issuesOff = true } }

// githubHost is GitHub's fake, internal/testing/githubtest, driven by
// go-github as the real GitHub is.
type githubHost struct{ *githubtest.Server }

func startGitHub(t *testing.T, w *world, wc *worldConfig) host {
	opts := []githubtest.Option{githubtest.WithToken(token), githubtest.WithClock(w.clock.Now)}
	if wc.perPage > 0 {
		opts = append(opts, githubtest.WithPerPage(wc.perPage))
	}
	repoOpts := []githubtest.RepoOption{githubtest.WithCloneURL(w.gs.URL(owner + "/" + name))}
	if wc.issuesOff {
		repoOpts = append(repoOpts, githubtest.WithIssuesDisabled())
	}
	gh := githubtest.New(append(opts, wc.ghOpts...)...)
	t.Cleanup(gh.Close)
	gh.AddRepo(owner, name, main_, githubtest.BareRepos(w.gs.Dir), repoOpts...)
	w.gh = gh
	return githubHost{gh}
}

func (h githubHost) kind() gitops.Kind { return gitops.GitHub }
func (h githubHost) apiURL() string    { return h.URL() }
func (h githubHost) bot() string       { return "github-actions[bot]" }
func (h githubHost) requests() int     { return h.Requests() }
func (h githubHost) writes() int       { return h.Writes() }

// noOpRequests: GitHub's pages hold 100 PRs, as many as the scenarios
// open; the world's token is an installation token, which says who it is.
func (h githubHost) noOpRequests(int) int { return noOpRequests }
func (h githubHost) whoAmI() int          { return 0 }

// caps: GitHub's auto-merge needs the repository's allow_auto_merge and
// is no draft's (its own tests cover it).
func (h githubHost) caps() hostCaps { c := full; c.draftAutoMerge = false; return c }

func (h githubHost) changes() []hostPR {
	var out []hostPR
	for _, pr := range h.PRs(owner, name) {
		out = append(out, hostPR(pr))
	}
	return out
}

func (h githubHost) openAs(login, head, base, title, body string, fork bool) (int, error) {
	return h.OpenPR(owner, name, login, head, base, title, body, fork)
}

func (h githubHost) close(n int) error { return h.ClosePR(owner, name, n) }
func (h githubHost) merge(n int) error { return h.MergePR(owner, name, n) }

// client is go-github against the fake, as Flux's notification-controller
// or a CI job would use it.
func (h githubHost) client() *github.Client {
	c := github.NewClient(&http.Client{}).WithAuthToken(token)
	c.BaseURL, _ = c.BaseURL.Parse(h.URL() + "/")
	return c
}

// postStatus posts through the API, as Flux's notification-controller
// does.
func (h githubHost) postStatus(sha, context, state string) error {
	_, _, err := h.client().Repositories.CreateStatus(ctx.Background(), owner, name, sha, &github.RepoStatus{State: &state, Context: &context})
	return err
}

func (h githubHost) postCheck(sha, checkName, conclusion string) error {
	_, _, err := h.client().Checks.CreateCheckRun(ctx.Background(), owner, name, github.CreateCheckRunOptions{
		Name: checkName, HeadSHA: sha, Status: github.String("completed"), Conclusion: &conclusion,
	})
	return err
}

func (h githubHost) issues() []hostIssue {
	var out []hostIssue
	for _, is := range h.Issues(owner, name) {
		out = append(out, hostIssue{Number: is.Number, Author: is.Author, Title: is.Title, Body: is.Body, State: is.State, Labels: is.Labels})
	}
	return out
}

func (h githubHost) openIssue(login, title, body string) (int, error) {
	return h.OpenIssue(owner, name, login, title, body)
}

func (h githubHost) editIssue(n int, title string, body *string) error {
	return h.EditIssue(owner, name, n, title, body, "")
}

// giteaHost is Gitea's fake, internal/testing/giteatest, driven by the
// Gitea SDK as a real Gitea or Forgejo is.
type giteaHost struct{ *giteatest.Server }

func startGitea(t *testing.T, w *world, wc *worldConfig) host {
	opts := []giteatest.Option{giteatest.WithToken(token), giteatest.WithClock(w.clock.Now)}
	if wc.perPage > 0 {
		opts = append(opts, giteatest.WithPerPage(wc.perPage))
	}
	repoOpts := []giteatest.RepoOption{giteatest.WithCloneURL(w.gs.URL(owner + "/" + name))}
	if wc.issuesOff {
		repoOpts = append(repoOpts, giteatest.WithIssuesDisabled())
	}
	g := giteatest.New(opts...)
	t.Cleanup(g.Close)
	g.AddRepo(owner, name, main_, githubtest.BareRepos(w.gs.Dir), repoOpts...)
	return giteaHost{g}
}

func (h giteaHost) kind() gitops.Kind { return gitops.Gitea }
func (h giteaHost) apiURL() string    { return h.URL() }
func (h giteaHost) bot() string       { return giteatest.BotLogin }
func (h giteaHost) requests() int     { return h.Requests() }
func (h giteaHost) writes() int       { return h.Writes() }

// noOpRequests: the repository, who the bot is (GET /user: the listing
// is by its author), and its open PRs in pages of 50.
func (h giteaHost) noOpRequests(open int) int { return 2 + max((open+49)/50, 1) }
func (h giteaHost) whoAmI() int               { return 1 }
func (h giteaHost) caps() hostCaps            { return full }

func (h giteaHost) changes() []hostPR {
	var out []hostPR
	for _, pr := range h.PRs(owner, name) {
		out = append(out, hostPR(pr))
	}
	return out
}

func (h giteaHost) openAs(login, head, base, title, body string, fork bool) (int, error) {
	return h.OpenPR(owner, name, login, head, base, title, body, fork)
}

func (h giteaHost) close(n int) error { return h.ClosePR(owner, name, n) }
func (h giteaHost) merge(n int) error { return h.MergePR(owner, name, n) }

// client is the Gitea SDK against the fake, as a CI job would use it.
func (h giteaHost) client() *gitea.Client {
	c, err := gitea.NewClient(h.URL(), gitea.SetToken(token))
	if err != nil {
		panic(err)
	}
	return c
}

func (h giteaHost) postStatus(sha, context, state string) error {
	_, _, err := h.client().CreateStatus(owner, name, sha, gitea.CreateStatusOption{State: gitea.StatusState(state), Context: context})
	return err
}

// postCheck is a Gitea or Forgejo Actions job: it reports as a commit
// status named after the workflow and the job.
func (h giteaHost) postCheck(sha, checkName, conclusion string) error {
	return h.postStatus(sha, checkName, conclusion)
}

func (h giteaHost) issues() []hostIssue {
	var out []hostIssue
	for _, is := range h.Issues(owner, name) {
		out = append(out, hostIssue(is))
	}
	return out
}

func (h giteaHost) openIssue(login, title, body string) (int, error) {
	return h.OpenIssue(owner, name, login, title, body)
}

func (h giteaHost) editIssue(n int, title string, body *string) error {
	return h.EditIssue(owner, name, n, title, body)
}
