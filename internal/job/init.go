package job

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/safefs"
)

// InitOptions are what `init` drafts a config from.
type InitOptions struct {
	Repo        string            // the repository's directory
	From        string            // "" (the images found), "flux" or "renovate"
	Mirrors     map[string]string // registry host -> mirror URL, written into the config
	Concurrency int               // registry requests in flight per host (0: 8)
	ActionRef   string            // the imagebot Action's ref in the workflow
}

// Init drafts .imagebot.yaml and a workflow for o.Repo: from the images it
// finds there, whose tags it looks up, or converted from Flux's or
// Renovate's config. It reads nothing outside the repository and writes
// nothing: the caller writes or prints the result.
func Init(ctx context.Context, o InitOptions) (*adopt.Result, error) {
	if err := checkRepoDir(o.Repo); err != nil {
		return nil, err
	}
	opts := adopt.Options{Concurrency: cmp.Or(o.Concurrency, 8), ActionRef: o.ActionRef, Mirrors: o.Mirrors}
	fsys := safefs.DirFS(o.Repo) // renovate.json and manifests: nothing outside the repository
	switch o.From {
	case "":
		opts.Registry = registry.NewClient(
			registry.WithMirrors(o.Mirrors),
			registry.WithKeychain(Keychain),
			registry.WithConcurrency(o.Concurrency),
			registry.WithLogger(slog.New(slog.DiscardHandler)),
		)
		return adopt.Init(ctx, fsys, opts)
	case "flux":
		return adopt.FromFlux(ctx, fsys, opts)
	case "renovate":
		return adopt.FromRenovate(ctx, fsys, opts)
	}
	return nil, fmt.Errorf("init --from %q: want flux or renovate", o.From)
}
