package job

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/safefs"
)

// InitOptions are what `init` drafts a config from.
type InitOptions struct {
	// Forge is --forge and what the environment says, with origin's host:
	// a repository on Gitea or Forgejo gets their Actions workflow, one on
	// GitLab a GitLab CI job, which installs Release (this build's
	// version, when it is a release).
	Forge       Forge
	Repo        string            // the repository's directory
	From        string            // "" (the images found), "flux" or "renovate"
	Mirrors     map[string]string // registry host -> mirror URL, written into the config
	Concurrency int               // registry requests in flight per host (0: 8)
	ActionRef   string            // the imagebot Action's ref in the workflow
	Release     string
}

// Init drafts .imagebot.yaml and a workflow for o.Repo: from the images it
// finds there, whose tags it looks up, or converted from Flux's or
// Renovate's config. It reads nothing outside the repository and writes
// nothing: the caller writes or prints the result.
func Init(ctx context.Context, o InitOptions) (*adopt.Result, error) {
	if err := checkRepoDir(o.Repo); err != nil {
		return nil, err
	}
	opts := adopt.Options{Concurrency: cmp.Or(o.Concurrency, 8), ActionRef: o.ActionRef, Mirrors: o.Mirrors, Runner: runnerOf(o)}
	origin, _ := gitops.OriginURL(o.Repo)
	opts.Repository, _ = gitops.RepositoryFromURL(origin) // "" when unknown: its presets are named, not followed
	// init takes no credentials: a GitLab guessed from origin is GitLab.
	kind := forge.Choose(o.Forge.Kind, o.Forge.Env, origin, false).Kind
	if kind == forge.Azure {
		opts.Azure, opts.Branch = true, headBranch(o.Repo)
		opts.Release = releaseOf(o.Release)
	}
	if kind == forge.Bitbucket {
		_, err := safefs.Lstat(o.Repo, adopt.BitbucketPipelinesPath)
		opts.HasBitbucketPipelines = err == nil
		opts.Release = releaseOf(o.Release)
	}
	if kind == gitops.GitLab {
		opts.GitLab = true
		_, err := safefs.Lstat(o.Repo, adopt.GitLabCIPath)
		opts.HasGitLabCI = err == nil
		if semver.MatchString(o.Release) {
			opts.Release = strings.TrimPrefix(o.Release, "v")
		}
	}
	res, err := draftFor(ctx, o, opts)
	if err == nil && kind == forge.BitbucketServer {
		res.Notes = append(res.Notes, adopt.Note{Msg: adopt.BitbucketServerNote})
	}
	return res, err
}

// draftFor drafts the config from the repository as it is, or converted
// from Flux or Renovate (o.From).
func draftFor(ctx context.Context, o InitOptions, opts adopt.Options) (*adopt.Result, error) {
	fsys := safefs.DirFS(o.Repo) // renovate.json and manifests: nothing outside the repository
	switch o.From {
	case "":
		opts.Registry = registry.NewClient(
			registry.WithMirrors(o.Mirrors),
			registry.WithKeychain(adopt.Keychain),
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

// runnerOf is the CI whose workflow init writes: Gitea's or Forgejo's
// Actions when the repository is on one (by --forge, their Actions, a
// token, or origin's host: Forgejo for codeberg.org, forgejo.* and
// FORGEJO_ACTIONS), Bitbucket Pipelines on Bitbucket Cloud, none on
// Bitbucket Data Center, else GitHub Actions.
func runnerOf(o InitOptions) string {
	origin, _ := gitops.OriginURL(o.Repo)
	switch forge.Choose(o.Forge.Kind, o.Forge.Env, origin, false).Kind {
	case gitops.Gitea:
	case forge.Bitbucket:
		return adopt.OnBitbucket
	case forge.BitbucketServer:
		return adopt.OnNoCI
	default:
		return adopt.OnGitHub
	}
	_, host, _, _ := forge.RemoteHost(origin)
	if o.Forge.Env.ForgejoActions || host == "codeberg.org" || strings.HasPrefix(host, "forgejo.") {
		return adopt.OnForgejo
	}
	return adopt.OnGitea
}

// semver is a release's version, as GoReleaser tags it: a development
// build ("dev") installs the placeholder release instead.
var semver = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+$`)
