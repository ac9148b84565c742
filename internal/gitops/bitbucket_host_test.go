package gitops_test

import (
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge/bitbucket"
	"github.com/imagebot/imagebot/internal/testing/bitbuckettest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

// bitbucketHost is Bitbucket Cloud's fake, internal/testing/bitbuckettest,
// driven by the Bitbucket driver's own client.
type bitbucketHost struct{ *bitbuckettest.Server }

var bitbucketMaker = hostMaker{"bitbucket", startBitbucket}

func startBitbucket(t *testing.T, w *world, wc *worldConfig) host {
	opts := []bitbuckettest.Option{bitbuckettest.WithToken(bitbuckettest.BotEmail, token), bitbuckettest.WithClock(w.clock.Now)}
	if wc.perPage > 0 {
		opts = append(opts, bitbuckettest.WithPerPage(wc.perPage))
	}
	repoOpts := []bitbuckettest.RepoOption{bitbuckettest.WithGit(githubtest.BareRepos(w.gs.Dir))}
	if wc.issuesOff {
		repoOpts = append(repoOpts, bitbuckettest.WithIssuesOff())
	}
	bb := bitbuckettest.New(opts...)
	t.Cleanup(bb.Close)
	bb.AddRepo(owner, name, main_, repoOpts...)
	return bitbucketHost{bb}
}

const bbRepo = owner + "/" + name

// bbUser is the account's e-mail an API token authenticates with on
// Bitbucket Cloud (gitops.Options.User, which every world sets).
const bbUser = bitbuckettest.BotEmail

func (h bitbucketHost) kind() gitops.Kind { return bitbucket.Kind }
func (h bitbucketHost) apiURL() string    { return h.URL() }
func (h bitbucketHost) bot() string       { return bitbuckettest.BotAccountID }
func (h bitbucketHost) requests() int     { return h.Requests() }
func (h bitbucketHost) writes() int       { return h.Writes() }

// noOpRequests: the repository, who the bot is (GET /2.0/user: the
// listing is by its author), and its open PRs in pages of 50.
func (h bitbucketHost) noOpRequests(open int) int { return 2 + max((open+49)/50, 1) }
func (h bitbucketHost) whoAmI() int               { return 1 }

// caps: Bitbucket Cloud has an issue tracker (without labels), and no
// labels, group reviewers or auto-merge on pull requests
// (docs/bitbucket.md).
func (h bitbucketHost) caps() hostCaps { return hostCaps{issues: true} }

func (h bitbucketHost) changes() []hostPR {
	var out []hostPR
	for _, pr := range h.PRs(bbRepo) {
		p := hostPR{Number: pr.ID, Author: pr.Author, Title: pr.Title, Body: pr.Description, Head: pr.Source,
			Base: pr.Destination, State: "closed", Merged: pr.State == "MERGED", Draft: pr.Draft,
			Reviewers: pr.Reviewers, HeadSHA: pr.HeadSHA}
		if pr.SourceRepo != bbRepo {
			p.HeadRepo = pr.SourceRepo
		}
		if pr.State == "OPEN" {
			p.State = "open"
		}
		for _, c := range pr.Comments {
			p.Comments = append(p.Comments, c.Raw)
		}
		out = append(out, p)
	}
	return out
}

func (h bitbucketHost) openAs(login, head, base, title, body string, fork bool) (int, error) {
	if base == "" {
		base = main_
	}
	from := ""
	if fork {
		from = login + "/" + name
	}
	n := h.OpenPR(bbRepo, head, base, title, login, from)
	h.DescribePR(bbRepo, n, body)
	return n, nil
}

func (h bitbucketHost) close(n int) error {
	h.DeclinePR(bbRepo, n)
	return nil
}

func (h bitbucketHost) merge(n int) error { return h.MergePR(bbRepo, n) }

// bitbucketStates are the lifecycle's status words in Bitbucket's.
var bitbucketStates = map[string]string{"success": "SUCCESSFUL", "failure": "FAILED", "pending": "INPROGRESS", "error": "STOPPED"}

// postStatus reports a build status, as Bitbucket Pipelines or a CI
// server does.
func (h bitbucketHost) postStatus(sha, context, state string) error {
	h.AddStatus(bbRepo, sha, bitbuckettest.Status{Key: context, State: bitbucketStates[state], Name: context})
	return nil
}

func (h bitbucketHost) postCheck(sha, checkName, conclusion string) error {
	return h.postStatus(sha, checkName, conclusion)
}

func (h bitbucketHost) issues() []hostIssue {
	var out []hostIssue
	for _, is := range h.Issues(bbRepo) {
		out = append(out, hostIssue{Number: is.ID, Author: is.Reporter, Title: is.Title, Body: is.Raw, State: "open"})
	}
	return out
}

func (h bitbucketHost) openIssue(login, title, body string) (int, error) {
	return h.OpenIssue(bbRepo, login, title, body), nil
}

func (h bitbucketHost) editIssue(n int, title string, body *string) error {
	return h.EditIssue(bbRepo, n, title, body)
}
