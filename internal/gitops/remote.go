package gitops

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	gitconfig "github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// remote is a clone of the repository's default branch and of
// imagebot's own branches, in a temporary directory that close removes.
// Commits are built and pushed from here.
//
// Its objects stay on disk, packed as fetched, and are read when asked
// for: memory holds what a run reads (the tip's files, the trees a history
// walk diffs, the versions of the files a rollout asks about), each through
// a bounded cache, never the history as a whole. In memory, go-git inflates
// every fetched object: 300 versions of a 1 MiB file took 560 MiB.
type remote struct {
	repo  *git.Repository
	store *objectStore
	dir   string
	url   string
	user  string // git user name of the token
	creds credentials
	base  string // default branch
	// adv is origin's branches as the last advertisement listed them;
	// covered the prefixes whose branches were fetched from it.
	adv     *advertisement
	covered []string
	cache   *packCache // nil: nothing kept across runs

	closeOnce sync.Once
	closeErr  error
}

// objectCacheSize bounds the inflated objects a remote keeps for reuse:
// the trees of the commits a walk diffs are read twice (as a commit's and
// as its child's parent), and a blob is often a delta of the one before.
const objectCacheSize = 24 * cache.MiByte

// maxOpenPacks bounds the pack files a remote keeps open: one per fetch.
const maxOpenPacks = 8

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
		return "", fmt.Errorf("cannot tell owner/name from %q", RedactURL(raw))
	}
	return parts[len(parts)-2] + "/" + parts[len(parts)-1], nil
}

// RedactURL removes userinfo (a token in https://x:TOKEN@host/...) from a
// URL before it reaches a message or a log (forge.RedactURL).
func RedactURL(raw string) string { return forge.RedactURL(raw) }

// openRemote fetches the default branch and the branches under
// defaultBranchPrefix into a new repository in a temporary directory
// (TMPDIR's): one ref advertisement and at most one upload-pack, none
// when cache holds every tip already. The caller closes it.
func openRemote(ctx context.Context, rawURL, user string, creds credentials, base string, cache *packCache, log *slog.Logger) (_ *remote, err error) {
	rm, err := newClone(rawURL, user, creds, base)
	if err != nil {
		return nil, err
	}
	if cache != nil {
		if err := cache.load(rm.repo.Storer, rm.packDir()); err != nil {
			// Not trusted, then: the clone may hold part of it, so
			// start over without it.
			log.Warn("git cache ignored", "err", err)
			rm.close()
			if rm, err = newClone(rawURL, user, creds, base); err != nil {
				return nil, err
			}
		}
		rm.cache = cache
	}
	defer func() {
		if err != nil {
			rm.close()
		}
	}()
	if err := rm.advertise(ctx); err != nil {
		return nil, err
	}
	if _, ok := rm.adv.heads[base]; !ok {
		return nil, rm.fetchErr(fmt.Errorf("origin has no default branch %s", base))
	}
	if err := rm.fetchAdvertised(ctx, []string{base}, defaultBranchPrefix); err != nil {
		return nil, err
	}
	return rm, nil
}

// newClone is an empty repository in a temporary directory, with origin.
func newClone(rawURL, user string, creds credentials, base string) (_ *remote, err error) {
	dir, err := os.MkdirTemp("", "imagebot-git-")
	if err != nil {
		return nil, fmt.Errorf("clone of %s: %w", RedactURL(rawURL), err)
	}
	store := newObjectStore(dir)
	rm := &remote{store: store, dir: dir, url: rawURL, user: user, creds: creds, base: base}
	defer func() {
		if err != nil {
			rm.close()
		}
	}()
	if rm.repo, err = git.Init(store, nil); err != nil {
		return nil, fmt.Errorf("clone of %s: %w", RedactURL(rawURL), err)
	}
	if _, err := rm.repo.CreateRemote(&gitconfig.RemoteConfig{Name: "origin", URLs: []string{rawURL}}); err != nil {
		return nil, err
	}
	return rm, nil
}

// packDir holds the clone's pack files.
func (r *remote) packDir() string { return filepath.Join(r.dir, "objects", "pack") }

// objectStore is go-git's on-disk storage, safe for concurrent use: scan
// reads the tip's files from several goroutines, and go-git's pack files
// share a position and an index loaded on first use. Objects come back
// inflated in memory, so that reading them needs no lock.
type objectStore struct {
	*filesystem.Storage
	mu sync.Mutex
	// blobBytes counts the blob content handed out, cached or not: what
	// reading files has cost, for tests to bound.
	blobBytes atomic.Int64
}

func newObjectStore(dir string) *objectStore {
	return &objectStore{Storage: filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(objectCacheSize),
		filesystem.Options{ExclusiveAccess: true, MaxOpenDescriptors: maxOpenPacks})}
}

func (s *objectStore) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, err := s.Storage.EncodedObject(t, h)
	if err == nil && o.Type() == plumbing.BlobObject {
		s.blobBytes.Add(o.Size())
	}
	return o, err
}

func (s *objectStore) DeltaObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.DeltaObject(t, h)
}

func (s *objectStore) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.EncodedObjectSize(h)
}

func (s *objectStore) HasEncodedObject(h plumbing.Hash) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.HasEncodedObject(h)
}

func (s *objectStore) SetEncodedObject(o plumbing.EncodedObject) (plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.Storage.SetEncodedObject(o)
}

// close keeps the packs this run fetched in the cache, releases the open
// pack files and removes the clone; closing again does nothing.
func (r *remote) close() error {
	r.closeOnce.Do(func() {
		if r.cache != nil {
			r.cache.save(r.packDir(), r.trackedTips())
		}
		r.closeErr = r.store.Close()
		if err := os.RemoveAll(r.dir); err != nil {
			r.closeErr = fmt.Errorf("remove the clone: %w", err)
		}
	})
	return r.closeErr
}

// fetchBranches fetches imagebot's branches: the tips its pushes are
// leased against, as the advertisement of Open (or of the last refetch)
// listed them. Branches gone from the remote are forgotten. Open fetched
// those under the default prefix already; another prefix costs an
// upload-pack for what is not on disk, and no new advertisement.
func (r *remote) fetchBranches(ctx context.Context, prefix string) error {
	for _, p := range r.covered {
		if strings.HasPrefix(prefix, p) {
			return nil
		}
	}
	return r.fetchAdvertised(ctx, nil, prefix)
}

// gitTimeout bounds one fetch or push: a remote that stops answering costs
// a run this much, not forever. The first fetch of a large repository's
// history is the longest of them.
const gitTimeout = 10 * time.Minute

// auth is the credential of one fetch or push: the token as the password
// of basic auth, with the host's user name (Forge.GitCredentials), never in the URL or any config. It is
// asked for each time, so that a GitHub App's token is a current one even
// late in a long run.
func (r *remote) auth(ctx context.Context) (transport.AuthMethod, error) {
	tok, err := r.creds.Token(ctx)
	if err != nil || tok == "" {
		return nil, err
	}
	return &githttp.BasicAuth{Username: r.user, Password: tok}, nil
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

// push puts commit on branch, leased against leased, the branch tip this
// run fetched (nil when there was no branch): the push is refused when the
// remote's branch is anything else by now, so a commit the run did not see
// is never overwritten. go-git checks the lease against the refs the
// remote advertises; receive-pack then updates the ref only if it still
// holds the advertised value, which closes the window between the two.
//
// already reports that the remote's branch holds commit itself: another
// run made the same commit (same tree, parent, message, author and second).
func (r *remote) push(ctx context.Context, branch string, commit plumbing.Hash, leased *object.Commit) (already bool, err error) {
	local := plumbing.ReferenceName("refs/heads/" + branch)
	if err := r.repo.Storer.SetReference(plumbing.NewHashReference(local, commit)); err != nil {
		return false, err
	}
	auth, err := r.auth(ctx)
	if err != nil {
		return false, fmt.Errorf("push %s: %w", branch, err)
	}
	opts := &git.PushOptions{RemoteName: "origin", Auth: auth}
	if leased != nil {
		opts.RefSpecs = []gitconfig.RefSpec{gitconfig.RefSpec("+" + string(local) + ":" + string(local))}
		opts.ForceWithLease = &git.ForceWithLease{RefName: local, Hash: leased.Hash}
	} else {
		// No lease can say "absent" in go-git; a push that is not forced
		// is refused for a branch that appeared meanwhile, which is the same.
		opts.RefSpecs = []gitconfig.RefSpec{gitconfig.RefSpec(string(local) + ":" + string(local))}
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	err = r.repo.PushContext(ctx, opts)
	already = errors.Is(err, git.NoErrAlreadyUpToDate)
	if err != nil && !already {
		return false, fmt.Errorf("push %s: %w", branch, r.creds.Scrub(err))
	}
	// Origin holds commit now: a later fetch of the branch from the same
	// advertisement must not take the tracking ref back.
	r.adv.heads[branch] = commit
	return already, r.repo.Storer.SetReference(plumbing.NewHashReference(tracking(branch), commit))
}

// refetch asks origin for its refs again, after a refused push, and
// returns the branch's tip, nil when the remote has no such branch any
// more: one advertisement, and an upload-pack when the tip is new.
func (r *remote) refetch(ctx context.Context, branch string) (*object.Commit, error) {
	if err := r.advertise(ctx); err != nil {
		return nil, err
	}
	if _, ok := r.adv.heads[branch]; !ok {
		if err := r.repo.Storer.RemoveReference(tracking(branch)); err != nil {
			return nil, err
		}
		return nil, nil
	}
	if err := r.fetchAdvertised(ctx, []string{branch}); err != nil {
		return nil, err
	}
	return r.branchTip(branch), nil
}
