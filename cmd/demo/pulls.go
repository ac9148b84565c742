package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/fixtures"
	"github.com/imagebot/imagebot/internal/testing/githubtest"
	"github.com/imagebot/imagebot/internal/testing/gittest"
)

// demoToken stands in for GITHUB_TOKEN against the embedded fakes.
const demoToken = "ghs_demo_token_not_a_secret"

// pullRequests is the `run` half of the demo: a real git remote over
// smart HTTP, a stateful fake GitHub, and a clone of the demo repository,
// as actions/checkout would leave it. It runs twice to show that a rerun
// with nothing new pushes nothing and writes nothing.
func (d *demo) pullRequests(ctx context.Context) error {
	gs, err := gittest.New(filepath.Join(d.dir, "remote"), demoToken)
	if err != nil {
		return err
	}
	defer gs.Close()
	first, steps, err := fixtures.DemoHistory()
	if err != nil {
		return err
	}
	if _, err := gs.CreateRepo("acme", "gitops", first, "main"); err != nil {
		return err
	}
	gh := githubtest.New(githubtest.WithToken(demoToken))
	defer gh.Close()
	gh.AddRepo("acme", "gitops", "main", githubtest.BareRepos(gs.Dir), githubtest.WithCloneURL(gs.URL("acme/gitops")))
	if err := demoHistory(ctx, filepath.Join(d.dir, "history"), gs.URL("acme/gitops"), gh, steps); err != nil {
		return err
	}

	clone := filepath.Join(d.dir, "clone")
	if _, err := git.PlainCloneContext(ctx, clone, false, &git.CloneOptions{
		URL:  gs.URL("acme/gitops"),
		Auth: &githttp.BasicAuth{Username: "x-access-token", Password: demoToken},
	}); err != nil {
		return err
	}
	// The remote plays GitHub's git host: the token goes to its host only.
	server := strings.TrimSuffix(gs.URL("acme/gitops"), "/acme/gitops.git")
	env := []string{"GITHUB_TOKEN=" + demoToken, "GITHUB_API_URL=" + gh.URL(), "GITHUB_SERVER_URL=" + server, "GITHUB_REPOSITORY=acme/gitops"}

	fmt.Fprintf(d.stdout, "\n== imagebot run (GitHub %s, remote %s)\n", gh.URL(), gs.URL("acme/gitops"))
	if err := d.imagebot(ctx, env, d.stdout, "run", clone); err != nil {
		return err
	}
	fmt.Fprintln(d.stdout, "\n== pull requests now open")
	for _, pr := range gh.PRs("acme", "gitops") {
		fmt.Fprintf(d.stdout, "#%-3d %-62s %s\n", pr.Number, pr.Title, pr.Head)
	}
	// The rollouts' PRs say the most: a group's, and a promotion's.
	for _, pr := range gh.PRs("acme", "gitops") {
		if strings.HasPrefix(pr.Head, "imagebot/group-") || strings.HasPrefix(pr.Head, "imagebot/promote-") {
			fmt.Fprintf(d.stdout, "\n== body of #%d (%s)\n%s\n", pr.Number, pr.Head, indent(pr.Body))
		}
	}

	// The dashboard issue: what waits, what is held, what was said.
	for _, is := range gh.Issues("acme", "gitops") {
		fmt.Fprintf(d.stdout, "\n== dashboard issue #%d (%s)\n%s\n", is.Number, is.Title, indent(is.Body))
	}

	writes, pushes := gh.Writes(), gs.Pushes()
	fmt.Fprintln(d.stdout, "== imagebot run again: nothing new")
	if err := d.imagebot(ctx, env, io.Discard, "run", clone); err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "API writes: %d, pushes: %d\n", gh.Writes()-writes, gs.Pushes()-pushes)
	return nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}
