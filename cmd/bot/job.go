package main

import (
	"io"
	"net/url"
	"strings"
	"sync"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/job"
)

// job is what the flags and the environment say, for internal/job, which
// does the work of plan, apply, run, rollback and serve.
func (o *commonOptions) job() job.Options {
	return job.Options{
		Repo:   o.Repo,
		Config: o.Config,
		Registry: job.Registry{
			Mirrors:     o.Mirrors,
			Concurrency: o.Concurrency.n,
			MaxRequests: o.MaxRequests.n,
			AllowEnv:    o.allowEnv(),
			LookupEnv:   o.Env.lookup,
			Cache:       o.Cache.job(),
		},
		Out:      o.IO.Out,
		Version:  version,
		Logger:   o.logger(),
		Progress: newJobProgress(o.IO.ErrOut, o.Env),
	}
}

// hostJob is job with how run, rollback and serve reach the git host
// (GitHub's, GitLab's and Gitea's settings; job chooses among them). A
// GitHub App's variables that are half set fail here, before any work.
func (o *commonOptions) hostJob(dryRun bool) (job.Options, error) {
	jo := o.job()
	token, app, err := githubAuth(o.Env.getenv)
	if err != nil {
		return jo, err
	}
	jo.DryRun = dryRun
	jo.GitHub = job.GitHub{Token: token, App: app, APIURL: o.Env.GitHubAPIURL,
		ServerURL: o.Env.GitHubServerURL, Repository: o.Env.GitHubRepository}
	jo.Gitea = job.Gitea{Token: o.Env.GiteaToken, ServerURL: o.Env.GiteaServerURL, Repository: o.Env.GitHubRepository}
	jo.GitLab = job.GitLab{Token: o.Env.GitLabToken, ServerURL: o.Env.Forge.GitLabServerURL, Project: o.Env.Forge.GitLabProject}
	jo.Bitbucket = o.Env.Bitbucket
	jo.Azure = o.Env.Azure
	if jo.Forge, err = o.forge(); err != nil {
		return jo, err
	}
	return jo, nil
}

// forge is --forge, --forge-url and what the environment says of the
// host. A host imagebot cannot speak to yet, named by the flag or the
// environment, is refused here, before any work.
func (o *commonOptions) forge() (job.Forge, error) {
	f := job.Forge{Env: o.Env.Forge}
	if o.Forge != nil {
		f.Kind = gitops.Kind(o.Forge.value)
	}
	if o.ForgeURL != "" {
		u, err := url.Parse(o.ForgeURL)
		// A path is where the host is installed (https://host/gitlab):
		// every host may live under one, and projects follow it.
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return f, usagef("--forge-url %s: want the host's URL, such as https://github.example.com or https://example.com/gitlab, without credentials or query", gitops.RedactURL(o.ForgeURL))
		}
		f.URL = strings.TrimSuffix(o.ForgeURL, "/")
	}
	if err := job.ForgeSupported(f, ""); err != nil {
		if f.Kind != "" {
			return f, &usageError{err}
		}
		return f, err
	}
	return f, nil
}

// allowEnv is the operator's patterns of the variables a config's
// passwordEnv may name: the flags and IMAGEBOT_ALLOW_ENV (comma-separated).
func (o *commonOptions) allowEnv() []string {
	allowed := append([]string(nil), o.AllowEnv...)
	for _, p := range strings.Split(o.Env.AllowEnv, ",") {
		if p = strings.TrimSpace(p); p != "" {
			allowed = append(allowed, p)
		}
	}
	return allowed
}

// jobProgress shows how a job goes: its phases as log groups in GitHub
// Actions, its lookups as a line that a terminal redraws.
type jobProgress struct {
	w   io.Writer
	env environ

	mu   sync.Mutex
	line *progress // the lookups under way; nil between them
}

var _ job.Progress = (*jobProgress)(nil)

func newJobProgress(w io.Writer, env environ) *jobProgress { return &jobProgress{w: w, env: env} }

func (p *jobProgress) Phase(name string) func() { return logGroup(p.w, p.env, name) }

func (p *jobProgress) Lookups(done, total int) {
	p.mu.Lock()
	if p.line == nil {
		p.line = newProgress(p.w, "looking up images")
	}
	line := p.line
	p.mu.Unlock()
	line.update(done, total)
}

func (p *jobProgress) LookupsDone() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.line != nil {
		p.line.done()
		p.line = nil
	}
}
