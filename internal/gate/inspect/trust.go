package inspect

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/sigstore/sigstore-go/pkg/root"

	"github.com/imagebot/imagebot/internal/signature"
)

// Trust is what keyless signatures are verified against: a Sigstore
// trusted root, fetched through TUF on first use. Inspectors given the
// same Trust (WithTrust) fetch it once between them, as serve's
// repositories do within a run.
type Trust struct {
	repo signature.TUF
	dir  string

	// mu is held for the fetch, so that the Inspectors sharing t wait for
	// one fetch instead of each making their own.
	mu  sync.Mutex
	tm  root.TrustedMaterial
	err error
}

// NewTrust is the trusted root that repo publishes (the zero TUF: Sigstore's
// public-good instance), kept in dir between runs; "" keeps nothing on
// disk. A run within a day of the one that filled dir needs no network.
func NewTrust(repo signature.TUF, dir string) *Trust {
	return &Trust{repo: repo, dir: dir}
}

// DefaultCacheDir is where the trust root is kept when no --cache names a
// directory: the user cache directory's imagebot/sigstore, or "" (nothing
// kept) when there is none, as in a container without $HOME.
func DefaultCacheDir() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "imagebot", "sigstore")
}

// material returns the trusted material, fetching it on the first call. A
// fetch that failed because ctx ended is not kept: that caller gave up (one
// repository's deadline in serve), and the next caller tries again.
func (t *Trust) material(ctx context.Context) (root.TrustedMaterial, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tm != nil || t.err != nil {
		return t.tm, t.err
	}
	tm, err := signature.TrustedRoot(ctx, t.repo, t.dir)
	var pathErr *fs.PathError
	if err != nil && t.dir != "" && errors.As(err, &pathErr) {
		// The directory cannot be written: the release image runs with a
		// read-only root filesystem, where $HOME/.cache cannot be made.
		// Keeping the trust root in memory costs one TUF fetch per run;
		// failing would hold every keyless candidate.
		tm, err = signature.TrustedRoot(ctx, t.repo, "")
	}
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	t.tm, t.err = tm, err
	return tm, err
}
