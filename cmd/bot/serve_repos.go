package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/imagebot/imagebot/internal/gitops"
)

// target is one checkout that serve runs on.
type target struct {
	url  string // --clone URL; "" for --repo, whose clone is the user's own
	dir  string
	name string // owner/name for GITHUB_REPOSITORY; "" for --repo
}

func (t target) label() string {
	if t.url == "" {
		return t.dir
	}
	return redactURL(t.url)
}

// resolveTargets turns --repo or --clone (after --shard) into checkouts.
func (s *server) resolveTargets() ([]target, error) {
	o := s.opts
	if len(o.Clones) == 0 {
		if o.Shard != "" {
			return nil, errors.New("--shard splits the --clone list; it needs --clone")
		}
		return []target{{dir: o.Repo}}, nil
	}
	if o.repoSet {
		return nil, errors.New("use --repo or --clone, not both")
	}
	urls := []string(o.Clones)
	if o.Shard != "" {
		i, n, err := parseShard(o.Shard, os.Getenv)
		if err != nil {
			return nil, err
		}
		urls = shard(urls, i, n)
		s.log.Info("shard", "index", i, "of", n, "repositories", len(urls), "listed", len(o.Clones))
	}
	work := o.Workdir
	if work == "" {
		dir, err := os.MkdirTemp("", "imagebot-serve-")
		if err != nil {
			return nil, err
		}
		work, s.cleanup = dir, func() { os.RemoveAll(dir) }
	}
	var ts []target
	for _, u := range urls {
		name, err := gitops.RepositoryFromURL(u)
		if err != nil {
			return nil, fmt.Errorf("--clone: %w", err)
		}
		// owner_name for people looking at the disk, the hash so that two
		// hosts serving the same owner/name never share a directory.
		dir := fmt.Sprintf("%s_%08x", strings.ReplaceAll(name, "/", "_"), fnv32a(u))
		ts = append(ts, target{url: u, dir: filepath.Join(work, dir), name: name})
	}
	return ts, nil
}

// parseShard reads "i/n", or "auto/n" with i from $JOB_COMPLETION_INDEX, the
// index Kubernetes gives each pod of an Indexed Job.
func parseShard(spec string, getenv func(string) string) (i, n int, err error) {
	is, ns, ok := strings.Cut(spec, "/")
	if !ok {
		return 0, 0, fmt.Errorf("--shard %q: want i/n or auto/n", spec)
	}
	if n, err = strconv.Atoi(ns); err != nil || n < 1 {
		return 0, 0, fmt.Errorf("--shard %q: n must be a whole number of at least 1", spec)
	}
	if is == "auto" {
		is = getenv("JOB_COMPLETION_INDEX")
		if is == "" {
			return 0, 0, fmt.Errorf("--shard %q: JOB_COMPLETION_INDEX is not set (it is in a Kubernetes Indexed Job)", spec)
		}
	}
	if i, err = strconv.Atoi(is); err != nil || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: i is %q, want 0 to %d", spec, is, n-1)
	}
	return i, n, nil
}

// shard keeps the URLs whose FNV-1a hash falls in share i of n. It depends on
// each URL alone, so adding a repository never moves the others to another
// shard, and every pod of a Job computes the same split.
func shard(urls []string, i, n int) []string {
	var keep []string
	for _, u := range urls {
		if int(fnv32a(u)%uint32(n)) == i {
			keep = append(keep, u)
		}
	}
	return keep
}

func fnv32a(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// sync brings a checkout to origin's default branch: cloning it first for
// --clone, discarding local commits and changes, as `git fetch` plus
// `git reset --hard origin/<default>` would.
func (s *server) sync(ctx context.Context, t target) error {
	var r *git.Repository
	var err error
	if t.url == "" {
		r, err = git.PlainOpen(t.dir)
	} else {
		r, err = s.openOrClone(ctx, t)
	}
	if err != nil {
		return s.scrub(err)
	}
	return s.scrub(syncRepo(ctx, r, s.auth))
}

func (s *server) openOrClone(ctx context.Context, t target) (*git.Repository, error) {
	r, err := git.PlainOpen(t.dir)
	if !errors.Is(err, git.ErrRepositoryNotExists) {
		return r, err
	}
	// A clone cut short leaves a directory that is not a repository; start
	// over rather than fail on every later run.
	os.RemoveAll(t.dir)
	s.log.Info("cloning", "repository", t.label())
	r, err = git.PlainCloneContext(ctx, t.dir, false, &git.CloneOptions{
		URL: t.url, Auth: s.auth(t.url), SingleBranch: true, Tags: git.NoTags,
	})
	if err != nil {
		os.RemoveAll(t.dir)
		return nil, fmt.Errorf("clone %s: %w", redactURL(t.url), err)
	}
	return r, nil
}

// auth is GITHUB_TOKEN as GitHub wants it over https: the password of basic
// auth for user x-access-token. Other transports (file, ssh) get none.
func (s *server) auth(rawURL string) transport.AuthMethod {
	ep, err := transport.NewEndpoint(rawURL)
	if s.token == "" || err != nil || (ep.Protocol != "https" && ep.Protocol != "http") {
		return nil
	}
	return &githttp.BasicAuth{Username: "x-access-token", Password: s.token}
}

// scrub keeps the token out of errors, which end up in logs.
func (s *server) scrub(err error) error {
	if err == nil || s.token == "" || !strings.Contains(err.Error(), s.token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), s.token, "***"))
}

// syncRepo fetches origin's default branch and hard-resets the worktree to
// it, with the local branch of the same name checked out.
func syncRepo(ctx context.Context, r *git.Repository, auth func(string) transport.AuthMethod) error {
	rem, err := r.Remote("origin")
	if err != nil {
		return err
	}
	urls := rem.Config().URLs
	if len(urls) == 0 {
		return errors.New("origin has no URL")
	}
	u := urls[0]
	branch, err := defaultBranch(ctx, r, rem, auth(u))
	if err != nil {
		return fmt.Errorf("list %s: %w", redactURL(u), err)
	}
	remoteRef := plumbing.NewRemoteReferenceName("origin", branch)
	err = r.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin", Auth: auth(u), Tags: git.NoTags, Force: true,
		RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec("+" + plumbing.NewBranchReferenceName(branch) + ":" + remoteRef)},
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("fetch %s: %w", redactURL(u), err)
	}
	ref, err := r.Reference(remoteRef, true)
	if err != nil {
		return fmt.Errorf("%s: %w", remoteRef, err)
	}
	// Point the local branch at origin's commit and check it out; the reset
	// then makes index and files match it (actions/checkout may have left a
	// detached HEAD, and someone may have edited files by hand).
	local := plumbing.NewBranchReferenceName(branch)
	if err := r.Storer.SetReference(plumbing.NewHashReference(local, ref.Hash())); err != nil {
		return err
	}
	if err := r.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, local)); err != nil {
		return err
	}
	wt, err := r.Worktree()
	if err != nil {
		return err
	}
	if err := wt.Reset(&git.ResetOptions{Commit: ref.Hash(), Mode: git.HardReset}); err != nil {
		return fmt.Errorf("reset to %s: %w", remoteRef, err)
	}
	return nil
}

// defaultBranch is the branch origin's HEAD points to, as the remote says,
// else as the local refs/remotes/origin/HEAD says, else main.
func defaultBranch(ctx context.Context, r *git.Repository, rem *git.Remote, auth transport.AuthMethod) (string, error) {
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		return "", err
	}
	for _, ref := range refs {
		if ref.Name() == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference && ref.Target().IsBranch() {
			return ref.Target().Short(), nil
		}
	}
	if ref, err := r.Reference(plumbing.NewRemoteHEADReferenceName("origin"), false); err == nil && ref.Type() == plumbing.SymbolicReference {
		if b, ok := strings.CutPrefix(ref.Target().String(), "refs/remotes/origin/"); ok {
			return b, nil
		}
	}
	return "main", nil
}

// redactURL drops credentials someone put in a URL before it is logged.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return raw
}
