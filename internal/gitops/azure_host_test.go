package gitops_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
	"github.com/imagebot/imagebot/internal/testing/azuretest"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
)

// azureHost is Azure DevOps' fake, internal/testing/azuretest, driven by
// the Azure DevOps driver.
type azureHost struct {
	*azuretest.Server
	git githubtest.GitBackend
}

var azureMaker = hostMaker{"azure", startAzure}

func startAzure(t *testing.T, w *world, wc *worldConfig) host {
	git := githubtest.BareRepos(w.gs.Dir)
	opts := []azuretest.Option{azuretest.WithToken(token, azuretest.Bot), azuretest.WithClock(w.clock.Now),
		azuretest.WithGit(git, owner, name)}
	// wc.perPage is not passed on: Azure DevOps honours $top up to 1,000
	// and links no next page, so a page shorter than the driver's 100 is
	// the last, and a fake that cut pages shorter would be a host that
	// does not exist. forge/azure's TestPaging reads pages of 100.
	s := azuretest.New(opts...)
	t.Cleanup(s.Close)
	return azureHost{s, git}
}

func (h azureHost) kind() gitops.Kind { return azure.Kind }
func (h azureHost) apiURL() string    { return h.URL() }
func (h azureHost) bot() string       { return azuretest.Bot.UniqueName }
func (h azureHost) requests() int     { return h.Requests() }
func (h azureHost) writes() int       { return h.Writes() }

// noOpRequests: the repository, who the bot is (connectionData: the
// listing is by its identity) and its open PRs in pages of 100. Azure
// DevOps lists descriptions cut at 400 characters; the driver writes the
// marker first, so the listing holds it and no PR is read on its own.
func (h azureHost) noOpRequests(open int) int { return 2 + max((open+99)/100, 1) }

// fixedPageSize: Azure DevOps answers as many PRs as $top asks, up to
// 1,000, and the driver asks 100; a shorter page ends the listing.
func (h azureHost) fixedPageSize() int { return 100 }

func (h azureHost) whoAmI() int { return 1 }

// caps: Azure DevOps has no issues (the dashboard is off: Boards' work
// items are another service); tags are labels, teams review, and
// auto-complete takes drafts.
func (h azureHost) caps() hostCaps {
	return hostCaps{labels: true, teamReviewers: true, draftAutoMerge: true}
}

// login is the name a configuration gives an identity the fake knows: a
// person's sign-in name without its domain ("jane"), a team's name
// ("platform").
func login(id string) (name string, team bool) {
	for _, i := range []azuretest.Identity{azuretest.Bot, azuretest.Human, azuretest.Team} {
		if i.ID == id {
			user, _, _ := strings.Cut(i.UniqueName, "@")
			if i == azuretest.Team {
				return strings.ToLower(i.DisplayName), true
			}
			return user, false
		}
	}
	return id, false
}

func (h azureHost) changes() []hostPR {
	var out []hostPR
	for _, pr := range h.PRs() {
		p := hostPR{Number: pr.ID, Author: pr.CreatedBy.UniqueName, Title: pr.Title, Body: pr.Description,
			Head: strings.TrimPrefix(pr.Source, "refs/heads/"), Base: strings.TrimPrefix(pr.Target, "refs/heads/"),
			State: "open", Merged: pr.Status == "completed", Draft: pr.IsDraft, AutoMerge: pr.AutoCompleteSetBy != "",
			Labels: pr.Labels}
		if pr.Status != "active" {
			p.State = "closed"
		}
		if pr.Fork != "" {
			p.HeadRepo = pr.Fork
		}
		for _, id := range pr.Reviewers {
			if n, team := login(id); team {
				p.TeamReviewers = append(p.TeamReviewers, n)
			} else {
				p.Reviewers = append(p.Reviewers, n)
			}
		}
		for _, th := range pr.Threads {
			for _, c := range th {
				p.Comments = append(p.Comments, c.Content)
			}
		}
		p.HeadSHA, _ = h.git.BranchSHA(owner, name, p.Head)
		out = append(out, p)
	}
	return out
}

func (h azureHost) openAs(who, head, base, title, body string, fork bool) (int, error) {
	if base == "" {
		base = main_
	}
	from := ""
	if fork {
		from = who + "/" + name
	}
	pr := h.OpenPRFrom(azuretest.Identity{UniqueName: who, DisplayName: who, ID: who}, from, head, base, title, body)
	return pr.ID, nil
}

func (h azureHost) close(n int) error { h.AbandonPR(n); return nil }
func (h azureHost) merge(n int) error { return h.CompletePR(n) }

var azureStates = map[string]string{"success": "succeeded", "failure": "failed", "pending": "pending", "error": "error"}

func (h azureHost) postStatus(sha, context, state string) error {
	h.SetStatus(sha, azuretest.Status{State: azureStates[state], Name: context})
	return nil
}

func (h azureHost) postCheck(sha, checkName, conclusion string) error {
	return h.postStatus(sha, checkName, conclusion)
}

func (h azureHost) issues() []hostIssue { return nil }
func (h azureHost) openIssue(string, string, string) (int, error) {
	return 0, errors.New("azure devops: no issues")
}
func (h azureHost) editIssue(int, string, *string) error {
	return errors.New("azure devops: no issues")
}
