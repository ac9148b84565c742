package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// runOptions are the flags of `run` (and of each scheduled run of `serve`).
type runOptions struct {
	commonOptions
	DryRun bool
}

// runSummary is what one run did, for serve's metrics and readiness.
type runSummary struct {
	Updates  int // updates in the plan
	Opened   int // pull requests opened
	Updated  int // pull requests updated (new version, rebased, retitled)
	Closed   int // pull requests closed (obsolete)
	Failed   int // lookups and pull requests that failed
	Problems int // problems in the repository's files
	Registry []registry.HostStats
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o runOptions
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o.bind(fs)
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the pull requests it would open or change, write nothing")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	_, code := runJob(ctx, o, stdout, stderr)
	return code
}

// runJob plans and opens pull requests once; serve calls it on schedule.
// It returns the exit status `run` would have.
func runJob(ctx context.Context, o runOptions, stdout, stderr io.Writer) (runSummary, int) {
	var sum runSummary
	e, err := newEngine(o.commonOptions, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		return sum, exitUsage
	}
	if !o.DryRun && os.Getenv("GITHUB_TOKEN") == "" {
		// Fail before the registry lookups, not after them.
		fmt.Fprintln(stderr, "imagebot run: GITHUB_TOKEN is not set: run needs a token that may push branches and open pull requests (or use --dry-run)")
		return sum, exitUsage
	}
	endPlan := logGroup(stdout, "imagebot: scan and look up images")
	p, _, err := e.plan(ctx)
	endPlan()
	if err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		return sum, exitUsage
	}
	sum.Updates, sum.Registry = len(p.Updates), e.reg.Stats()
	for _, pr := range p.Problems {
		if pr.Failed {
			sum.Failed++
		} else {
			sum.Problems++
		}
	}
	if o.DryRun && os.Getenv("GITHUB_TOKEN") == "" {
		// Without a token a dry run can still show every PR from the
		// working tree; it cannot tell which already exist.
		e.log.Info("no GITHUB_TOKEN: previewing from the working tree only")
		if err := gitops.Preview(p, o.Repo, e.cfg.Git.BranchPrefix, stdout); err != nil {
			fmt.Fprintf(stderr, "imagebot run: %v\n", err)
			return sum, exitUsage
		}
		annotate(stdout, p)
		return sum, exitFor(p)
	}
	gopts, err := gitopsOptions(o, e.cfg, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		return sum, exitUsage
	}
	gopts.Logger = e.log
	gopts.Details = e.reg.Info
	endPRs := logGroup(stdout, "imagebot: branches and pull requests")
	res, err := gitops.Run(ctx, p, gopts)
	endPRs()
	if err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		sum.Failed++
		return sum, exitPartial
	}
	p.Problems = append(p.Problems, res.Problems...)
	sum.Opened, sum.Updated, sum.Closed = len(res.Opened), len(res.Updated), len(res.Closed)
	sum.Failed += len(res.Failed)
	printRun(stdout, p, res)
	annotate(stdout, p)
	if err := writeActionOutputs(sum); err != nil {
		e.log.Warn("GitHub Actions outputs not written", "err", err)
	}
	if sum.Failed > 0 {
		return sum, exitPartial
	}
	return sum, exitOK
}

// gitopsOptions reads GitHub Actions' environment and the config.
func gitopsOptions(o runOptions, cfg *config.Config, stdout io.Writer) (gitops.Options, error) {
	g := gitops.Options{
		APIURL:       os.Getenv("GITHUB_API_URL"),
		Token:        os.Getenv("GITHUB_TOKEN"),
		Repository:   os.Getenv("GITHUB_REPOSITORY"),
		BranchPrefix: cfg.Git.BranchPrefix,
		Author:       object.Signature{Name: cfg.Git.Author.Name, Email: cfg.Git.Author.Email},
		Draft:        cfg.PullRequests.Draft,
		DryRun:       o.DryRun,
		Out:          stdout,
		Message: func(u plan.Update) (string, error) {
			return cfg.Git.Message(config.MessageData{Image: u.Image, From: u.From, To: u.To, Type: u.Type, Digest: u.Digest})
		},
		Meta: func(image string) gitops.Meta {
			r := cfg.For(image)
			return gitops.Meta{Labels: r.Labels, Reviewers: r.Reviewers, Automerge: r.Automerge}
		},
	}
	if g.Token == "" {
		return g, fmt.Errorf("GITHUB_TOKEN is not set: run needs a token that may push branches and open pull requests")
	}
	url, err := gitops.OriginURL(o.Repo)
	if err != nil {
		return g, err
	}
	g.URL = url
	if g.Repository == "" {
		if g.Repository, err = gitops.RepositoryFromURL(url); err != nil {
			return g, err
		}
	}
	return g, nil
}

func printRun(w io.Writer, p *plan.Plan, r *gitops.Result) {
	for _, l := range []struct {
		what     string
		branches []string
	}{{"opened", r.Opened}, {"updated", r.Updated}, {"closed", r.Closed}, {"unchanged", r.Unchanged},
		{"declined before", r.Declined}, {"left alone (foreign commits)", r.Foreign}} {
		for _, b := range l.branches {
			fmt.Fprintf(w, "%-28s %s\n", l.what, b)
		}
	}
	for _, err := range r.Failed {
		fmt.Fprintf(w, "failed: %v\n", err)
	}
	if len(p.Problems) > 0 {
		fmt.Fprintf(w, "\n%d %s:\n", len(p.Problems), plural(len(p.Problems), "problem", "problems"))
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "  %s:%d: %s\n", pr.File, pr.Line, pr.Message)
		}
	}
}
