package job

import (
	"github.com/imagebot/imagebot/internal/chartrepo"
	"io"
	"log/slog"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// Options are what a command's flags and environment say.
type Options struct {
	// Repo is the repository's directory: the working tree that Plan and
	// Apply read, the clone whose origin Run and Rollback work on.
	Repo string
	// Config is --config: a path in the repository, or an absolute path;
	// "" finds .imagebot.yaml (or .imagebot.yml) at the repository's root.
	Config string
	// Forge is which host the repository is on (--forge, --forge-url,
	// the CI environment); GitHub how Run reaches it there.
	Forge    Forge
	GitHub   GitHub
	Gitea    Gitea // how Run reaches a Gitea or Forgejo server
	GitLab   GitLab
	Azure    Azure // how Run reaches Azure DevOps
	Registry Registry
	// Bitbucket is how Run reaches Bitbucket Cloud or a Data Center.
	Bitbucket Bitbucket
	// DryRun writes nothing: Run and Rollback write the pull requests they
	// would open or change, with their diffs, to Out.
	DryRun bool
	Out    io.Writer
	// Version is this build's version (main.version): its release's image
	// runs the pre-pull DaemonSet.
	Version  string
	Logger   *slog.Logger
	Progress Progress // nil: none
	// Pool, set by serve for the length of one run, shares registry
	// clients between the run's repositories.
	Pool *Pool
	// Images, when set (serve's push hooks), are the only images planned
	// (normalized names): the run is partial, so the pull requests of
	// other images and the dashboard are left as they are (hook.go).
	Images []string
	// Kube reaches the clusters of the config's `clusters:` (driftpin.go).
	Kube Kube
}

// GitHub is how Run and Rollback reach the repository on GitHub, as the
// environment of GitHub Actions says it.
type GitHub struct {
	Token      string      // GITHUB_TOKEN: API token and git password
	App        *gitops.App // a GitHub App instead of (and over) Token
	APIURL     string      // GITHUB_API_URL; "" is https://api.github.com
	ServerURL  string      // GITHUB_SERVER_URL; "" is https://github.com
	Repository string      // GITHUB_REPOSITORY: owner/name; "" reads it from origin
}

// Registry are the registry settings of the flags and the environment;
// the config's registries: add to them (a flag's mirror wins).
type Registry struct {
	Mirrors     map[string]string // --mirror HOST=URL
	Concurrency int               // --concurrency per host; 0 is the client's default
	MaxRequests int               // --max-requests per host and run; 0 is no cap
	// AllowEnv are the operator's patterns of the variables a config's
	// passwordEnv may name (--allow-env, IMAGEBOT_ALLOW_ENV).
	AllowEnv []string
	// LookupEnv reads the variables the config names; nil reads none.
	LookupEnv func(name string) (string, bool)
	Cache     *Cache // nil: no --cache
}

// Progress hears how a command goes, for cmd/bot to show. Phase opens a
// phase (a log group in GitHub Actions) and returns what closes it;
// Lookups hears the image lookups done of total, and LookupsDone that
// they are over.
type Progress interface {
	Phase(name string) (end func())
	Lookups(done, total int)
	LookupsDone()
}

// Report is what Plan and Apply did.
type Report struct {
	Plan *plan.Plan
	// Cost is what the command cost the registries, by host.
	Cost []registry.HostStats
	// ChartCost is what it cost the HTTP Helm repositories, by host.
	ChartCost []chartrepo.HostStats
	// Changed are the files Apply wrote.
	Changed []string
}

// RunReport is what Run and Rollback did. Summary is always set; Plan is
// set once the command got to the end, with what to show of it: Result is
// what happened to the pull requests (nil for a preview without a token,
// and for a rollback with nothing to do).
type RunReport struct {
	Summary Summary
	Plan    *plan.Plan
	Result  *gitops.Result
	// Preview is a dry run without a token: every pull request shown from
	// the working tree, none looked up.
	Preview bool
	// Stopped is the one line a run that did nothing has to say: the
	// onboarding pull request was closed unmerged.
	Stopped string
	// Forge is the host the run worked on, whose words its report uses
	// (GitLab's merge requests are !12); "" when it is not known.
	Forge     gitops.Kind
	Cost      []registry.HostStats
	ChartCost []chartrepo.HostStats
}

// Summary is what one run did on one repository, for serve's metrics and
// the GitHub Actions outputs.
type Summary struct {
	Updates int // updates in the plan
	Opened  int // pull requests opened
	Updated int // pull requests updated (new version, rebased, retitled)
	Closed  int // pull requests closed (obsolete)
	Failed  int // lookups and pull requests that failed
	// RateLimited are pull requests left for the next run because GitHub
	// asked for a longer pause than a run waits.
	RateLimited int
	Problems    int // problems in the repository's files
	Dangling    int // references whose image the registry no longer has
	Drift       DriftCount
}

// logger is o.Logger, or one that discards.
func (o *Options) logger() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}

// progress is o.Progress, or one that hears nothing.
func (o *Options) progress() Progress {
	if o.Progress == nil {
		return quiet{}
	}
	return o.Progress
}

type quiet struct{}

func (quiet) Phase(string) func() { return func() {} }
func (quiet) Lookups(int, int)    {}
func (quiet) LookupsDone()        {}

// out is o.Out, or nowhere.
func (o *Options) out() io.Writer {
	if o.Out == nil {
		return io.Discard
	}
	return o.Out
}
