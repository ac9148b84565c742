package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/imagebot/imagebot/internal/gitops"
)

// syncTarget prepares a checkout for a run. A clone of serve's own (--clone)
// is brought to origin's default branch, discarding local commits and
// changes, as `git fetch` plus `git reset --hard origin/<default>` would;
// so is Options.Dir with ResetCheckout, and only then. Otherwise Dir is a
// person's checkout: a dry run leaves it alone, and a real run refuses it
// while it has uncommitted or untracked files (the run itself reads
// origin's tip, not the working tree).
func (s *Server) syncTarget(ctx context.Context, t Target) error {
	if t.URL == "" && !s.o.ResetCheckout {
		if s.o.DryRun {
			return nil
		}
		return checkClean(t.Dir)
	}
	if t.URL == "" && s.o.DryRun {
		return nil // --dry-run writes nothing, even to a disposable checkout
	}
	a, err := s.credentials(ctx, t)
	if err != nil {
		return err
	}
	var r *git.Repository
	if t.URL == "" {
		r, err = git.PlainOpen(t.Dir)
	} else {
		r, err = s.openOrClone(ctx, t, a)
	}
	if err == nil {
		err = syncRepo(ctx, r, a.method)
	}
	return a.explain(t, err)
}

// gitAuth is the password one sync uses, and the secret to keep out of its
// errors.
type gitAuth struct{ token, user, name string }

// credentials are Token, or what TokenFor gives for the target's URL (its
// origin's, for a checkout that serve did not clone).
func (s *Server) credentials(ctx context.Context, t Target) (gitAuth, error) {
	if s.o.TokenFor == nil {
		return s.auth(s.o.Token), nil
	}
	u := t.URL
	if u == "" {
		r, err := git.PlainOpen(t.Dir)
		if err != nil {
			return gitAuth{}, err
		}
		rem, err := r.Remote("origin")
		if err != nil || len(rem.Config().URLs) == 0 {
			return gitAuth{}, fmt.Errorf("%s: no origin to fetch from", t.label())
		}
		u = rem.Config().URLs[0]
	}
	tok, err := s.o.TokenFor(ctx, u)
	if err != nil {
		return gitAuth{}, fmt.Errorf("%s: %w", t.label(), err)
	}
	return s.auth(tok), nil
}

// auth is token with the user and variable name the host has.
func (s *Server) auth(token string) gitAuth {
	return gitAuth{token: token, user: cmp.Or(s.o.User, "x-access-token"), name: cmp.Or(s.o.TokenVar, "GITHUB_TOKEN")}
}

// explain keeps a's token out of err and says what to do when a remote
// refuses us: go-git's own words ("authentication required:
// authentication required") do not.
func (a gitAuth) explain(t Target, err error) error {
	err = a.scrub(err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transport.ErrAuthenticationRequired) && a.token == "":
		return fmt.Errorf("%s asks for credentials and %s is not set: export a token that may read the repository and open pull requests (%w)", t.label(), a.name, transport.ErrAuthenticationRequired)
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%s refused %s: check that it is valid, not expired, and may read the repository (%w)", t.label(), a.name, transport.ErrAuthenticationRequired)
	}
	return err
}

func (s *Server) openOrClone(ctx context.Context, t Target, a gitAuth) (*git.Repository, error) {
	r, err := git.PlainOpen(t.Dir)
	if !errors.Is(err, git.ErrRepositoryNotExists) {
		return r, err
	}
	// A clone cut short leaves a directory that is not a repository; start
	// over rather than fail on every later run.
	os.RemoveAll(t.Dir)
	s.log.Info("cloning", "repository", t.label())
	r, err = git.PlainCloneContext(ctx, t.Dir, false, &git.CloneOptions{
		URL: t.URL, Auth: a.method(t.URL), SingleBranch: true, Tags: git.NoTags,
	})
	if err != nil {
		os.RemoveAll(t.Dir)
		return nil, fmt.Errorf("clone %s: %w", gitops.RedactURL(t.URL), err)
	}
	return r, nil
}

// method is the token as the host wants it over https: the password of
// basic auth, for GitHub's user x-access-token or GitLab's oauth2. Other
// transports (file, ssh) get none.
func (a gitAuth) method(rawURL string) transport.AuthMethod {
	ep, err := transport.NewEndpoint(rawURL)
	if a.token == "" || err != nil || (ep.Protocol != "https" && ep.Protocol != "http") {
		return nil
	}
	return &githttp.BasicAuth{Username: a.user, Password: a.token}
}

// scrub keeps the token out of errors, which end up in logs.
func (a gitAuth) scrub(err error) error {
	if err == nil || a.token == "" || !strings.Contains(err.Error(), a.token) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), a.token, "***"))
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
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: auth(u)})
	if err != nil {
		return fmt.Errorf("list %s: %w", gitops.RedactURL(u), err)
	}
	branch := defaultBranch(r, refs)
	remoteRef := plumbing.NewRemoteReferenceName("origin", branch)
	// The listing is the ref advertisement a fetch would ask for again:
	// when the checkout holds origin's tip already (nothing moved since
	// the last run), the tracking ref is set from it, and no fetch is made.
	if tip, ok := branchTip(refs, branch); ok && hasCommit(r, tip) {
		err = r.Storer.SetReference(plumbing.NewHashReference(remoteRef, tip))
	} else {
		err = r.FetchContext(ctx, &git.FetchOptions{
			RemoteName: "origin", Auth: auth(u), Tags: git.NoTags, Force: true,
			RefSpecs: []gitconfig.RefSpec{gitconfig.RefSpec("+" + plumbing.NewBranchReferenceName(branch) + ":" + remoteRef)},
		})
	}
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return fmt.Errorf("fetch %s: %w", gitops.RedactURL(u), err)
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

// defaultBranch is the branch origin's HEAD points to, as the remote's
// refs say, else as the local refs/remotes/origin/HEAD says, else main.
func defaultBranch(r *git.Repository, refs []*plumbing.Reference) string {
	for _, ref := range refs {
		if ref.Name() == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference && ref.Target().IsBranch() {
			return ref.Target().Short()
		}
	}
	if ref, err := r.Reference(plumbing.NewRemoteHEADReferenceName("origin"), false); err == nil && ref.Type() == plumbing.SymbolicReference {
		if b, ok := strings.CutPrefix(ref.Target().String(), "refs/remotes/origin/"); ok {
			return b
		}
	}
	return "main"
}

// branchTip is the commit refs give branch.
func branchTip(refs []*plumbing.Reference, branch string) (plumbing.Hash, bool) {
	for _, ref := range refs {
		if ref.Name() == plumbing.NewBranchReferenceName(branch) && ref.Type() == plumbing.HashReference {
			return ref.Hash(), true
		}
	}
	return plumbing.ZeroHash, false
}

// hasCommit reports whether the checkout holds commit h. A shallow
// checkout holds its tip without the history, which a reset does not need.
func hasCommit(r *git.Repository, h plumbing.Hash) bool {
	_, err := r.CommitObject(h)
	return err == nil
}
