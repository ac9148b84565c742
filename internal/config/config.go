package config

import (
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Config is the content of .imagebot.yaml with defaults filled in.
type Config struct {
	// Registries is keyed by registry host as normalized image names spell
	// it: lowercase, and Docker Hub's other names ("index.docker.io",
	// "registry-1.docker.io") in the file become "docker.io". A key may also
	// be a host followed by a path prefix ("charts.bitnami.com/bitnami"):
	// its mirror replaces that prefix of HTTP chart repository URLs (see
	// ChartMirrors), and it serves no registry.
	Registries map[string]Registry `yaml:"registries"`
	// Policies apply in file order; see For.
	Policies []Policy `yaml:"policies"`
	// Groups move several images in one pull request; see GroupFor.
	Groups []Group `yaml:"groups"`
	// Environments soak a version in one set of paths before promoting it
	// to another; see EnvironmentFor.
	Environments []Environment `yaml:"environments"`
	// Prepull is nil unless the file asks for images to be pulled onto the
	// nodes before a rollout.
	Prepull *Prepull `yaml:"prepull"`
	// Paths are doublestar globs of files to scan, relative to the repository
	// root; empty means DefaultPaths.
	Paths []string `yaml:"paths"`
	// Exclude are doublestar globs of files never scanned. Anything inside a
	// .git directory is excluded whether listed or not.
	Exclude []string `yaml:"exclude"`
	// MaxFileSize is the largest file the scanner reads; larger ones are
	// skipped with a problem. 0 leaves the scanner's default.
	MaxFileSize Size `yaml:"maxFileSize"`
	// Schedule is when `serve` runs: five cron fields, a descriptor such as
	// "@hourly" or "@every 30m", optionally after "CRON_TZ=Area/City ".
	// Empty leaves the choice to serve.
	Schedule     string       `yaml:"schedule"`
	Git          Git          `yaml:"git"`
	PullRequests PullRequests `yaml:"pullRequests"`
	// Dashboard is nil when the file leaves it out: on, as in Renovate
	// (dependencyDashboard). See DashboardOn.
	Dashboard *bool `yaml:"dashboard"`
	// DashboardTitle is the title of the dashboard issue; "" is
	// DefaultDashboardTitle. The bot finds its issue by a hidden marker,
	// not by title, so renaming it loses nothing.
	DashboardTitle string `yaml:"dashboardTitle"`
	// Approval lists the update types (or "all") held on the dashboard
	// until someone ticks them; a policy's approval replaces it for its
	// images (see For).
	Approval []string `yaml:"approval"`
	// Onboarding is nil when the file leaves it out: on. See OnboardingOn.
	Onboarding *bool `yaml:"onboarding"`
	// SeparateMajorMinor is nil when the file leaves it out: on, as in
	// Renovate. See MajorMinorSeparate.
	SeparateMajorMinor *bool `yaml:"separateMajorMinor"`
	// Hooks is what serve's push hooks ask of a notification (serve's
	// own config file only).
	Hooks Hooks `yaml:"hooks"`
	// Clusters are compared with the repository by drift (clusters.go).
	// Both are left out of a JSON dump when unset.
	Clusters []Cluster `yaml:"clusters" json:"Clusters,omitempty"`
	Drift    *Drift    `yaml:"drift" json:"Drift,omitempty"`

	// File is the path the config was loaded from, "" when defaulted.
	File string `yaml:"-"`
}

// Registry is how to reach one registry host.
type Registry struct {
	// Mirror is a URL, http(s)://host[:port][/path], that serves the same
	// repositories. It must carry its scheme: plain http is used only when
	// the file says http://, never as a fallback, and credentials never go
	// in the URL. One host has one scheme: two mirrors on the same host
	// must agree on it.
	Mirror   string `yaml:"mirror"`
	Username string `yaml:"username"`
	// PasswordEnv is the name of the environment variable that holds the
	// password or token. The file never holds the secret itself, so a
	// "password" key is an error.
	PasswordEnv string `yaml:"passwordEnv"`
	// PasswordEnvLine is the line of passwordEnv in File, for messages
	// about the variable it names.
	PasswordEnvLine int `yaml:"-" json:"-"`
	// Concurrency is how many requests may be in flight to this registry
	// at once; 0 leaves the registry client's default.
	Concurrency int `yaml:"concurrency"`
	// MaxRequests caps the requests one run sends to this registry; once
	// spent, the remaining lookups fail at once. 0 is no cap.
	MaxRequests int `yaml:"maxRequests"`
}

// Git is how imagebot commits.
type Git struct {
	Author Author `yaml:"author"`
	// CommitMessage is a text/template rendered with MessageData; see
	// Git.Message.
	CommitMessage string `yaml:"commitMessage"`
	// BranchPrefix starts the name of every branch imagebot pushes; it is
	// how the bot tells its branches from people's.
	BranchPrefix string `yaml:"branchPrefix"`
	// SignedCommits is "" (commits pushed over git, signed by nobody) or
	// SignedCommitsAPI.
	SignedCommits string `yaml:"signedCommits"`
}

// SignedCommitsAPI creates commits through GitHub's Git Data API, which
// GitHub signs and marks Verified (for branch protection's "require signed
// commits").
const SignedCommitsAPI = "api"

// Author is the commit author (and committer).
type Author struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// PullRequests holds settings for every pull request imagebot opens.
type PullRequests struct {
	// Labels and Reviewers go on every pull request; a policy's own labels
	// and reviewers add to them (see For).
	Labels    []string `yaml:"labels"`
	Reviewers []string `yaml:"reviewers"`
	// Draft opens pull requests as drafts. GitHub never auto-merges a
	// draft, so it cannot go with a policy's automerge.
	Draft bool `yaml:"draft"`
	// MaxOpen caps the imagebot pull requests open at once (Renovate's
	// prConcurrentLimit); 0 is no cap. Left out, it is DefaultMaxOpen.
	MaxOpen int `yaml:"maxOpen"`
	// PerHour caps the pull requests opened in any hour (Renovate's
	// prHourlyLimit), counted from the creation times of the bot's own
	// pull requests on the host, so that it holds under any schedule and
	// across processes; 0 is no cap. Left out, it is DefaultPerHour.
	PerHour int `yaml:"perHour"`
	// PerRun caps the pull requests one run opens; 0 is no cap.
	PerRun int `yaml:"perRun"`
}

// DefaultPaths are scanned when the file gives no paths.
// Besides YAML they hold YAML behind a template suffix (Ansible's Jinja,
// Talos and home-lab Go templates), read where it parses, and Dockerfiles.
var DefaultPaths = []string{
	"**/*.yaml", "**/*.yml",
	"**/*.yaml.j2", "**/*.yml.j2", "**/*.yaml.tmpl", "**/*.yml.tmpl", "**/*.yaml.tpl", "**/*.yml.tpl",
	"**/Dockerfile", "**/Dockerfile.*", "**/*.Dockerfile", "**/Containerfile", "**/Containerfile.*", "**/*.Containerfile",
}

// Defaults for the keys the file leaves out.
const (
	DefaultAuthorName       = "imagebot"
	DefaultAuthorEmail      = "imagebot@users.noreply.github.com"
	DefaultCommitMessage    = "Update {{.Image}} to {{.To}}"
	DefaultBranchPrefix     = "imagebot/"
	DefaultPrepullNamespace = "kube-system"
	DefaultDashboardTitle   = "imagebot dashboard"
	// DefaultMaxOpen and DefaultPerHour keep the first week calm, as
	// Renovate's recommended preset does: a repository with 70 updates
	// gets 2 pull requests an hour and 10 at most, the rest waits on the
	// dashboard. A file may raise them or write 0 for no limit.
	DefaultMaxOpen = 10
	DefaultPerHour = 2
)

// gitExclude is always excluded: git's own files are never manifests, and
// nested .git directories (submodules) count too.
const gitExclude = "**/.git/**"

// Default is the configuration of a repository without .imagebot.yaml.
func Default() *Config {
	c := &Config{}
	c.presetDefaults()
	c.setDefaults()
	return c
}

// presetDefaults sets the defaults of the keys where 0 is a value of its
// own ("no limit"), before the file is decoded over them: a key left out
// keeps its default, a key written keeps what it says.
func (c *Config) presetDefaults() {
	c.PullRequests.MaxOpen = DefaultMaxOpen
	c.PullRequests.PerHour = DefaultPerHour
}

func (c *Config) setDefaults() {
	if len(c.Paths) == 0 {
		c.Paths = slices.Clone(DefaultPaths)
	}
	if c.Git.Author.Name == "" {
		c.Git.Author.Name = DefaultAuthorName
	}
	if c.Git.Author.Email == "" {
		c.Git.Author.Email = DefaultAuthorEmail
	}
	if c.Git.CommitMessage == "" {
		c.Git.CommitMessage = DefaultCommitMessage
	}
	if c.Git.BranchPrefix == "" {
		c.Git.BranchPrefix = DefaultBranchPrefix
	}
	if c.DashboardTitle == "" {
		c.DashboardTitle = DefaultDashboardTitle
	}
	if c.Prepull != nil && c.Prepull.Namespace == "" {
		c.Prepull.Namespace = DefaultPrepullNamespace
	}
}

// DashboardOn reports whether the dashboard issue is kept: unless the file
// says `dashboard: false`.
func (c *Config) DashboardOn() bool { return c.Dashboard == nil || *c.Dashboard }

// OnboardingOn reports whether a repository without a config gets the
// onboarding pull request first: unless the file says `onboarding: false`.
// (A repository that has a config file is past onboarding either way.)
func (c *Config) OnboardingOn() bool { return c.Onboarding == nil || *c.Onboarding }

// MajorMinorSeparate reports whether the newest version within an image's
// current major and the newest major are proposed as two pull requests
// (Renovate's separateMajorMinor): unless the file says
// `separateMajorMinor: false`. Then closing the major's pull request
// declines that major line only, and the minors keep coming.
func (c *Config) MajorMinorSeparate() bool {
	return c.SeparateMajorMinor == nil || *c.SeparateMajorMinor
}

// Mirrors maps registry host ("docker.io") to mirror URL for the registries
// that have one. Keys with a path prefix map chart repositories only, and
// are not among them.
func (c *Config) Mirrors() map[string]string {
	m := map[string]string{}
	for host, r := range c.Registries {
		if r.Mirror != "" && !strings.Contains(host, "/") {
			m[host] = r.Mirror
		}
	}
	return m
}

// ChartMirrors maps the URL prefixes of HTTP chart repositories, written
// as host or host/path ("charts.bitnami.com/bitnami"), to the mirror URL
// that replaces them: every registries entry with a mirror. A bare host
// maps the whole host.
func (c *Config) ChartMirrors() map[string]string {
	m := map[string]string{}
	for key, r := range c.Registries {
		if r.Mirror != "" {
			m[key] = r.Mirror
		}
	}
	return m
}

// Host is the host of a registries key: the key itself, or what comes
// before the path of a chart repository prefix.
func Host(key string) string {
	h, _, _ := strings.Cut(key, "/")
	return h
}

// Included reports whether the file at relPath (slash-separated, relative to
// the repository root) is to be scanned: it matches a path glob and no
// exclude glob, and it is not the pre-pull manifest, which imagebot writes
// itself and whose images are on their way in, not in use.
func (c *Config) Included(relPath string) bool {
	p, ok := repoPath(relPath)
	if !ok {
		return false // outside the repository: never ours to touch
	}
	if c.Prepull != nil && p == c.Prepull.Manifest {
		return false
	}
	if anyMatch([]string{gitExclude}, p) || anyMatch(c.Exclude, p) {
		return false
	}
	paths := c.Paths
	if len(paths) == 0 {
		paths = DefaultPaths // a Config built in code rather than loaded
	}
	return anyMatch(paths, p)
}

// repoPath cleans a slash-separated path relative to the repository root,
// reporting false for one that leaves it.
func repoPath(relPath string) (string, bool) {
	p := path.Clean(strings.TrimPrefix(relPath, "./"))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return "", false
	}
	return p, true
}

// anyMatch reports whether name fits one of globs. The globs were validated
// on load, so doublestar's error cannot happen.
func anyMatch(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

// Hooks are serve's push hook settings (DESIGN.md "Own images and push
// hooks").
type Hooks struct {
	// OIDC lists, per issuer of --hook-oidc, the claims its tokens must
	// carry, each equal to the value given.
	OIDC []HookOIDC `yaml:"oidc"`
}

// HookOIDC is one entry of hooks.oidc.
type HookOIDC struct {
	Issuer   string            `yaml:"issuer"`
	Audience string            `yaml:"audience"`
	Claims   map[string]string `yaml:"claims"`
}
