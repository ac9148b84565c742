package gitops

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/memory"
)

// remote is an in-memory clone of the GitHub repository's default branch and
// of imagebot's own branches. Commits are built and pushed from here.
type remote struct {
	repo   *git.Repository
	url    string
	auth   transport.AuthMethod
	base   string // default branch
	prefix string
}

// OriginURL returns the URL of a local clone's `origin`, as actions/checkout
// leaves it (https, no credentials).
func OriginURL(dir string) (string, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return "", fmt.Errorf("open %s: %w", dir, err)
	}
	o, err := r.Remote("origin")
	if err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if urls := o.Config().URLs; len(urls) > 0 {
		return urls[0], nil
	}
	return "", fmt.Errorf("%s: origin has no URL", dir)
}

// RepositoryFromURL derives "owner/name" from a remote URL.
func RepositoryFromURL(raw string) (string, error) {
	p := raw
	if u, err := url.Parse(raw); err == nil && u.Host != "" {
		p = u.Path
	} else if _, rest, ok := strings.Cut(raw, ":"); ok { // git@github.com:owner/name.git
		p = rest
	}
	parts := strings.Split(strings.Trim(strings.TrimSuffix(p, ".git"), "/"), "/")
	if len(parts) < 2 {
		return "", fmt.Errorf("cannot tell owner/name from %q", redact(raw))
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1], nil
}

// redact removes userinfo from a URL before it reaches a message.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = nil
		return u.String()
	}
	return raw
}

func openRemote(ctx context.Context, rawURL, token, base, prefix string) (*remote, error) {
	r, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		return nil, err
	}
	if _, err := r.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{rawURL}}); err != nil {
		return nil, err
	}
	rm := &remote{repo: r, url: rawURL, base: base, prefix: prefix}
	if token != "" {
		// The token is the password of basic auth, as GitHub wants it; it is
		// never put in the URL or any config.
		rm.auth = &githttp.BasicAuth{Username: "x-access-token", Password: token}
	}
	err = r.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		Auth:       rm.auth,
		RefSpecs: []gitconfig.RefSpec{
			gitconfig.RefSpec("+refs/heads/" + base + ":refs/remotes/origin/" + base),
			gitconfig.RefSpec("+refs/heads/" + prefix + "*:refs/remotes/origin/" + prefix + "*"),
		},
		Tags: git.NoTags,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, fmt.Errorf("fetch %s: %w", redact(rawURL), scrub(err, token))
	}
	return rm, nil
}

// scrub keeps a token out of an error that might quote a request.
func scrub(err error, token string) error {
	if token == "" || !strings.Contains(err.Error(), token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), token, "***"))
}

func (r *remote) commit(name string) (*object.Commit, error) {
	ref, err := r.repo.Reference(plumbing.ReferenceName(name), true)
	if err != nil {
		return nil, err
	}
	return r.repo.CommitObject(ref.Hash())
}

func (r *remote) baseTip() (*object.Commit, error) {
	c, err := r.commit("refs/remotes/origin/" + r.base)
	if err != nil {
		return nil, fmt.Errorf("default branch %s: %w", r.base, err)
	}
	return c, nil
}

// branchTip is the remote's commit for one of imagebot's branches, or nil.
func (r *remote) branchTip(branch string) *object.Commit {
	c, err := r.commit("refs/remotes/origin/" + branch)
	if err != nil {
		return nil
	}
	return c
}

// push force-pushes commit to branch. Force is right: the branch is
// imagebot's, rebuilt on the base tip, and checked for foreign commits first.
func (r *remote) push(ctx context.Context, branch string, commit plumbing.Hash, token string) error {
	local := plumbing.ReferenceName("refs/heads/" + branch)
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(local, commit)); err != nil {
		return err
	}
	err := r.repo.PushContext(ctx, &git.PushOptions{
		RemoteName: "origin",
		Auth:       r.auth,
		RefSpecs:   []gitconfig.RefSpec{gitconfig.RefSpec("+" + string(local) + ":" + string(local))},
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("push %s: %w", branch, scrub(err, token))
	}
	return r.repo.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName("refs/remotes/origin/"+branch), commit))
}
