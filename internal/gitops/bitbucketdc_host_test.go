package gitops_test

import (
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge/bitbucket"
	"github.com/imagebot/imagebot/internal/testing/bitbuckettest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

// bitbucketDCHost is Bitbucket Data Center's fake,
// internal/testing/bitbuckettest, driven by the Bitbucket driver.
type bitbucketDCHost struct{ *bitbuckettest.DataCenter }

var bitbucketDCMaker = hostMaker{"bitbucket-server", startBitbucketDC}

func startBitbucketDC(t *testing.T, w *world, wc *worldConfig) host {
	opts := []bitbuckettest.DCOption{bitbuckettest.WithDCToken(token), bitbuckettest.WithDCClock(w.clock.Now)}
	if wc.perPage > 0 {
		opts = append(opts, bitbuckettest.WithMaxLimit(wc.perPage))
	}
	d := bitbuckettest.NewDataCenter(opts...)
	t.Cleanup(d.Close)
	d.AddRepo(owner, name, main_)
	d.SetGit(bbRepo, githubtest.BareRepos(w.gs.Dir))
	return bitbucketDCHost{d}
}

func (h bitbucketDCHost) kind() gitops.Kind { return bitbucket.ServerKind }
func (h bitbucketDCHost) apiURL() string    { return h.URL() }
func (h bitbucketDCHost) bot() string       { return bitbuckettest.DCUser }
func (h bitbucketDCHost) requests() int     { return h.Requests() }
func (h bitbucketDCHost) writes() int       { return h.Writes() }

// noOpRequests: the repository and its default branch (who the bot is
// comes with them), and the open PRs in pages of 100.
func (h bitbucketDCHost) noOpRequests(open int) int { return 2 + max((open+99)/100, 1) }
func (h bitbucketDCHost) whoAmI() int               { return 0 }

// caps: Data Center has no issue tracker (the dashboard is off), no
// labels and no group reviewers; its auto-merge takes drafts.
func (h bitbucketDCHost) caps() hostCaps { return hostCaps{draftAutoMerge: true} }

func (h bitbucketDCHost) changes() []hostPR {
	var out []hostPR
	for _, pr := range h.PRs(bbRepo) {
		p := hostPR{Number: pr.ID, Author: pr.Author, Title: pr.Title, Body: pr.Desc, Head: pr.From, Base: pr.To,
			State: "closed", Merged: pr.State == "MERGED", Draft: pr.Draft, AutoMerge: pr.AutoMerge,
			Reviewers: pr.Reviewers, Comments: pr.Comments, HeadSHA: pr.FromCommit}
		if pr.State == "OPEN" {
			p.State = "open"
		}
		if pr.FromRepo != bbRepo {
			p.HeadRepo = pr.FromRepo
		}
		out = append(out, p)
	}
	return out
}

func (h bitbucketDCHost) openAs(login, head, base, title, body string, fork bool) (int, error) {
	if base == "" {
		base = main_
	}
	from := ""
	if fork {
		from = "~" + strings.ToUpper(login) + "/" + name
	}
	n := h.OpenPR(bbRepo, head, base, title, login, from)
	h.DescribePR(bbRepo, n, body)
	return n, nil
}

func (h bitbucketDCHost) close(n int) error {
	h.DeclinePR(bbRepo, n)
	return nil
}

func (h bitbucketDCHost) merge(n int) error { return h.MergePR(bbRepo, n) }

func (h bitbucketDCHost) postStatus(sha, context, state string) error {
	h.AddStatus(sha, bitbuckettest.Status{Key: context, State: bitbucketStates[state], Name: context})
	return nil
}

func (h bitbucketDCHost) postCheck(sha, checkName, conclusion string) error {
	return h.postStatus(sha, checkName, conclusion)
}

func (h bitbucketDCHost) issues() []hostIssue                           { return nil }
func (h bitbucketDCHost) openIssue(string, string, string) (int, error) { return 0, errNoTracker }
func (h bitbucketDCHost) editIssue(int, string, *string) error          { return errNoTracker }

var errNoTracker = bitbucketNoTracker("Bitbucket Data Center has no issue tracker")

type bitbucketNoTracker string

func (e bitbucketNoTracker) Error() string { return string(e) }
