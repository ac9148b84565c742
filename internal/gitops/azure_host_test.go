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
// the Azure DevOps driver. It is not in hosts: Azure DevOps has no issues
// for the dashboard (the driver says "dashboard off"), which the
// dashboard scenarios of eachHost need; TestAzureLifecycle runs the
// lifecycle on it instead.
type azureHost struct {
	*azuretest.Server
	git githubtest.GitBackend
}

var azureMaker = hostMaker{"azure", startAzure}

func startAzure(t *testing.T, w *world, wc *worldConfig) host {
	git := githubtest.BareRepos(w.gs.Dir)
	opts := []azuretest.Option{azuretest.WithToken(token, azuretest.Bot), azuretest.WithClock(w.clock.Now),
		azuretest.WithGit(git, owner, name)}
	if wc.perPage > 0 {
		opts = append(opts, azuretest.WithPerPage(wc.perPage))
	}
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
func (h azureHost) whoAmI() int               { return 1 }

func (h azureHost) changes() []hostPR {
	var out []hostPR
	for _, pr := range h.PRs() {
		p := hostPR{Number: pr.ID, Author: pr.CreatedBy.UniqueName, Title: pr.Title, Body: pr.Description,
			Head: strings.TrimPrefix(pr.Source, "refs/heads/"), Base: strings.TrimPrefix(pr.Target, "refs/heads/"),
			State: "open", Merged: pr.Status == "completed", Draft: pr.IsDraft, AutoMerge: pr.AutoCompleteSetBy != "",
			Labels: pr.Labels, Reviewers: pr.Reviewers}
		if pr.Status != "active" {
			p.State = "closed"
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

func (h azureHost) openAs(login, head, base, title, body string, fork bool) (int, error) {
	if fork || base != "" && base != main_ {
		return 0, errors.New("azuretest: no forks, no other bases")
	}
	pr := h.OpenPR(azuretest.Identity{UniqueName: login, DisplayName: login, ID: login}, head, main_, title)
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

// TestAzureLifecycle: the lifecycle on Azure DevOps, through the driver
// against the fake: one PR per stream opened as the bot; a rerun with
// nothing to do writes and pushes nothing at noOpRequests; a PR abandoned
// by a person declines its update; a conflicting base rebases the
// branch onto the new tip, keeping the PR.
func TestAzureLifecycle(t *testing.T) {
	t.Parallel()
	w := newWorld(t, onHost(azureMaker))
	res := w.runClean(t)
	diffSets(t, "opened", res.Opened, allBranches())
	open := w.openPRs()
	for b, pr := range open {
		if pr.Author != azuretest.Bot.UniqueName || pr.Base != main_ || !strings.Contains(pr.Body, "imagebot") {
			t.Errorf("%s: %+v", b, pr)
		}
	}

	t.Run("no-op rerun", func(t *testing.T) {
		before, requests := w.counters(), w.host.requests()
		res := w.runClean(t)
		t.Logf("no-op rerun with %d open PRs: %d API requests", len(open), w.host.requests()-requests)
		if got, want := w.host.requests()-requests, w.host.noOpRequests(len(open)); got != want {
			t.Errorf("no-op rerun made %d API requests, want %d", got, want)
		}
		if after := w.counters(); after != before {
			t.Errorf("no-op rerun wrote: %+v -> %+v", before, after)
		}
		diffSets(t, "unchanged", res.Unchanged, allBranches())
	})

	t.Run("abandoned is declined", func(t *testing.T) {
		if err := w.host.close(open[kubectl].Number); err != nil {
			t.Fatal(err)
		}
		res := w.runClean(t)
		diffSets(t, "declined", res.Declined, []string{kubectl})
		if len(res.Opened) != 0 {
			t.Errorf("reopened: %v", res.Opened)
		}
	})

	t.Run("conflicting base is rebased", func(t *testing.T) {
		w.humanPush(t, main_, "postgres 15.5 for the CVE fix", map[string]func(string) string{
			"charts/orders-db/values.yaml": replace(`tag: "15.4"`, `tag: "15.5"`),
		})
		before := w.counters()
		res := w.runClean(t)
		diffSets(t, "updated", res.Updated, []string{postgres})
		if after := w.counters(); after.pushes-before.pushes != 1 {
			t.Errorf("%d pushes, want 1", after.pushes-before.pushes)
		}
		if _, err := w.tryGit("merge-tree", "--write-tree", "main", postgres); err != nil {
			t.Errorf("rebased branch still conflicts: %v", err)
		}
		pr := w.openPRs()[postgres]
		if pr.Number != open[postgres].Number || !strings.Contains(pr.Body, `"from":"15.5"`) {
			t.Errorf("PR !%d (want !%d) body:\n%s", pr.Number, open[postgres].Number, pr.Body)
		}
	})
}
