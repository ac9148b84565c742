package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

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
	Updates int // updates in the plan
	Opened  int // pull requests opened
	Updated int // pull requests updated (new version, rebased, retitled)
	Closed  int // pull requests closed (obsolete)
	Failed  int // lookups and pull requests that failed
	// RateLimited are pull requests left for the next run because GitHub
	// asked for a longer pause than a run waits.
	RateLimited int
	Problems    int // problems in the repository's files
	Registry    []registry.HostStats
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
// It returns the exit status `run` would have. It plans from the default
// branch's tip, fetched into memory, with the config in that same tree:
// what it commits onto. The checkout in --repo only names the remote, so a
// stale or dirty one can neither fail the run nor mislead it.
func runJob(ctx context.Context, o runOptions, stdout, stderr io.Writer) (runSummary, int) {
	var sum runSummary
	fail := func(code int, err error) (runSummary, int) {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		if code == exitPartial {
			sum.Failed++
		}
		return sum, code
	}
	log, err := o.logger(stderr)
	if err != nil {
		return fail(exitUsage, err)
	}
	token, app, err := githubAuth(os.Getenv)
	if err != nil {
		return fail(exitUsage, err)
	}
	if token == "" && app == nil {
		if o.DryRun {
			return previewJob(ctx, o, stdout, stderr)
		}
		// Fail before the registry lookups, not after them.
		return fail(exitUsage, errors.New("GITHUB_TOKEN is not set: run needs a token that may push branches and open pull requests, or a GitHub App (IMAGEBOT_APP_ID and IMAGEBOT_APP_PRIVATE_KEY) (or use --dry-run)"))
	}
	conn, err := connection(o.Repo, token)
	if err != nil {
		return fail(exitUsage, err)
	}
	conn.Logger, conn.App = log, app

	endPlan := logGroup(stderr, "imagebot: fetch, scan and look up images")
	sess, err := gitops.Open(ctx, conn)
	if err != nil {
		endPlan()
		return fail(exitPartial, err)
	}
	cfg, err := treeConfig(sess, o.Config)
	if err != nil {
		endPlan()
		return fail(exitUsage, err)
	}
	e, err := engineFor(o.commonOptions, cfg, sess.FS(), tipName(sess), log, stderr)
	if err != nil {
		endPlan()
		return fail(exitUsage, err)
	}
	p, scanned, err := e.plan(ctx)
	if err == nil {
		err = applyRollouts(ctx, e, sess, p, scanned.Refs)
	}
	endPlan()
	if err != nil {
		return fail(exitUsage, err)
	}
	sum.Updates, sum.Registry = len(p.Updates), e.reg.Stats()
	for _, pr := range p.Problems {
		if pr.Failed {
			sum.Failed++
		} else {
			sum.Problems++
		}
	}
	ro := pullRequestOptions(o, cfg, stdout)
	ro.Details = e.reg.Info
	ro.SignedCommits = cfg.Git.SignedCommits == config.SignedCommitsAPI
	endPRs := logGroup(stderr, "imagebot: branches and pull requests")
	res, err := sess.Run(ctx, p, ro)
	endPRs()
	if err != nil {
		return fail(exitPartial, err)
	}
	p.Problems = append(p.Problems, res.Problems...)
	sum.Opened, sum.Updated, sum.Closed = len(res.Opened), len(res.Updated), len(res.Closed)
	sum.Failed += len(res.Failed)
	sum.RateLimited = len(res.RateLimited)
	printRun(stdout, p, res)
	printWaiting(stdout, p)
	annotate(stderr, p)
	if err := writeActionOutputs(sum); err != nil {
		e.log.Warn("GitHub Actions outputs not written", "err", err)
	}
	if sum.Failed > 0 || sum.RateLimited > 0 {
		return sum, exitPartial
	}
	return sum, exitOK
}

// previewJob is `run --dry-run` without a token: every PR shown from the
// working tree, none looked up, since without a token it cannot tell which
// already exist.
func previewJob(ctx context.Context, o runOptions, stdout, stderr io.Writer) (runSummary, int) {
	var sum runSummary
	e, err := newEngine(o.commonOptions, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		return sum, exitUsage
	}
	endPlan := logGroup(stderr, "imagebot: scan and look up images")
	p, _, err := e.plan(ctx)
	endPlan()
	if err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		return sum, exitUsage
	}
	sum.Updates, sum.Registry = len(p.Updates), e.reg.Stats()
	e.log.Info("no GITHUB_TOKEN: previewing from the working tree only")
	if err := gitops.Preview(p, o.Repo, e.cfg.Git.BranchPrefix, stdout); err != nil {
		fmt.Fprintf(stderr, "imagebot run: %v\n", err)
		return sum, exitUsage
	}
	annotate(stderr, p)
	return sum, exitFor(p)
}

// connection reads GitHub Actions' environment and the checkout's origin.
func connection(repo, token string) (gitops.Options, error) {
	c := gitops.Options{
		APIURL:     os.Getenv("GITHUB_API_URL"),
		Token:      token,
		Repository: os.Getenv("GITHUB_REPOSITORY"),
	}
	url, err := gitops.OriginURL(repo)
	if err != nil {
		return c, err
	}
	c.URL = url
	if c.Repository == "" {
		if c.Repository, err = gitops.RepositoryFromURL(url); err != nil {
			return c, err
		}
	}
	return c, nil
}

// pullRequestOptions are what the config says of branches and PRs.
func pullRequestOptions(o runOptions, cfg *config.Config, stdout io.Writer) gitops.RunOptions {
	return gitops.RunOptions{
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
}

// tipName names the commit run plans from in messages: "main@1a2b3c4d5e6f".
func tipName(sess *gitops.Session) string { return sess.Base() + "@" + sess.Commit()[:12] }

// maxConfigSize bounds a config read from the tree, as config.Load does on
// disk: a config is a few kilobytes.
const maxConfigSize = 1 << 20

// treeConfig reads the config from the tree run plans from: --config FILE
// when relative (a path in the repository), else .imagebot.yaml or
// .imagebot.yml at its root, else the defaults. An absolute --config is a
// file on disk, outside the repository.
func treeConfig(sess *gitops.Session, file string) (*config.Config, error) {
	if file != "" && filepath.IsAbs(file) {
		return config.Load(file)
	}
	fsys, where := sess.FS(), tipName(sess)
	names := config.FileNames
	if file != "" {
		name := path.Clean(filepath.ToSlash(file))
		if !fs.ValidPath(name) {
			return nil, fmt.Errorf("--config %s: not a path inside the repository (an absolute path is read from disk)", file)
		}
		names = []string{name}
	}
	var found []string
	for _, name := range names {
		switch _, err := fs.Stat(fsys, name); {
		case err == nil:
			found = append(found, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("read config %s in %s: %w", name, where, err)
		}
	}
	switch {
	case len(found) == 0 && file != "":
		return nil, fmt.Errorf("--config %s: no such file in %s (run reads the config from the default branch's tip)", file, where)
	case len(found) == 0:
		return config.Default(), nil
	case len(found) > 1:
		return nil, &config.Errors{{File: found[1], Msg: fmt.Sprintf("both %s and %s exist in %s; keep one", found[0], found[1], where)}}
	}
	info, err := fs.Stat(fsys, found[0])
	if err != nil {
		return nil, err
	}
	if info.Size() > maxConfigSize {
		return nil, &config.Errors{{File: found[0], Msg: fmt.Sprintf("config is larger than %d bytes", maxConfigSize)}}
	}
	data, err := fs.ReadFile(fsys, found[0])
	if err != nil {
		return nil, fmt.Errorf("read config %s in %s: %w", found[0], where, err)
	}
	return config.Parse(found[0], data)
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
	if n := len(r.RateLimited); n > 0 {
		fmt.Fprintf(w, "rate-limited: %d %s left for the next run\n", n, plural(n, "pull request", "pull requests"))
	}
	if len(p.Problems) > 0 {
		fmt.Fprintf(w, "\n%d %s:\n", len(p.Problems), plural(len(p.Problems), "problem", "problems"))
		for _, pr := range p.Problems {
			fmt.Fprintf(w, "  %s:%d: %s\n", pr.File, pr.Line, pr.Message)
		}
	}
}
