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
	// it: lowercase, and "index.docker.io" in the file becomes "docker.io".
	Registries map[string]Registry `yaml:"registries"`
	// Policies apply in file order; see For.
	Policies []Policy `yaml:"policies"`
	// Paths are doublestar globs of files to scan, relative to the repository
	// root; empty means DefaultPaths.
	Paths []string `yaml:"paths"`
	// Exclude are doublestar globs of files never scanned. Anything inside a
	// .git directory is excluded whether listed or not.
	Exclude []string `yaml:"exclude"`
	// Schedule is when `serve` runs: five cron fields, a descriptor such as
	// "@hourly" or "@every 30m", optionally after "CRON_TZ=Area/City ".
	// Empty leaves the choice to serve.
	Schedule     string       `yaml:"schedule"`
	Git          Git          `yaml:"git"`
	PullRequests PullRequests `yaml:"pullRequests"`

	// File is the path the config was loaded from, "" when defaulted.
	File string `yaml:"-"`
}

// Registry is how to reach one registry host.
type Registry struct {
	// Mirror is a URL, http(s)://host[:port][/path], that serves the same
	// repositories. It must carry its scheme: plain http is used only when
	// the file says http://, never as a fallback, and credentials never go
	// in the URL.
	Mirror   string `yaml:"mirror"`
	Username string `yaml:"username"`
	// PasswordEnv is the name of the environment variable that holds the
	// password or token. The file never holds the secret itself, so a
	// "password" key is an error.
	PasswordEnv string `yaml:"passwordEnv"`
}

// Policy is one entry of `policies:`. Pointer and slice fields are nil when
// the key is absent, so that merging can tell "not said" from "said zero".
type Policy struct {
	// Match is a doublestar glob over normalized image names
	// ("docker.io/library/nginx"): `*` stays within a path segment, `**`
	// crosses segments.
	Match string  `yaml:"match"`
	Skip  *bool   `yaml:"skip"`
	Allow *string `yaml:"allow"` // major | minor | patch
	// Ignore lists versions (exact tags) that are never proposed.
	Ignore []string `yaml:"ignore"`
	// Pattern is a regexp with a named group `version`: tags that do not
	// match are not candidates, and only the group is compared.
	Pattern *string `yaml:"pattern"`
	// Versioning is semver | numeric | alphabetical; absent means the
	// default same-shape rule.
	Versioning *string `yaml:"versioning"`
	// Range is a Masterminds semver constraint. It is only accepted next to
	// `versioning: semver` in the same entry (see For).
	Range     *string  `yaml:"range"`
	Pin       *string  `yaml:"pin"` // tag | digest
	Labels    []string `yaml:"labels"`
	Reviewers []string `yaml:"reviewers"`
	// Automerge lists the update types that may merge without review:
	// major | minor | patch | digest | pin.
	Automerge []string `yaml:"automerge"`

	// Line is the line of the entry in the file, 0 when not from a file.
	Line int `yaml:"-"`
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
}

// Author is the commit author (and committer).
type Author struct {
	Name  string `yaml:"name"`
	Email string `yaml:"email"`
}

// PullRequests holds settings for every pull request imagebot opens.
type PullRequests struct {
	// Labels and Reviewers are the defaults that a policy's own labels and
	// reviewers replace (see For).
	Labels    []string `yaml:"labels"`
	Reviewers []string `yaml:"reviewers"`
	Draft     bool     `yaml:"draft"`
}

// DefaultPaths are scanned when the file gives no paths.
var DefaultPaths = []string{"**/*.yaml", "**/*.yml"}

// Defaults for the git keys the file leaves out.
const (
	DefaultAuthorName    = "imagebot"
	DefaultAuthorEmail   = "imagebot@users.noreply.github.com"
	DefaultCommitMessage = "Update {{.Image}} to {{.To}}"
	DefaultBranchPrefix  = "imagebot/"
)

// gitExclude is always excluded: git's own files are never manifests, and
// nested .git directories (submodules) count too.
const gitExclude = "**/.git/**"

// Default is the configuration of a repository without .imagebot.yaml.
func Default() *Config {
	c := &Config{}
	c.setDefaults()
	return c
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
}

// Resolved is what the policies say about one image. Allow is "major" when
// no policy narrows it; the other strings are "" when no policy sets them.
type Resolved struct {
	Skip                                   bool
	Allow, Pattern, Versioning, Range, Pin string
	Ignore, Labels, Reviewers, Automerge   []string
}

// For merges every policy whose match fits image (a normalized name such as
// "docker.io/library/nginx") in file order: a key that a later policy sets
// replaces the earlier value. Lists replace too, they never append, so
// `ignore: []` clears an earlier ignore list; the same holds for labels and
// reviewers, which start from pullRequests.labels/reviewers (as Renovate's
// packageRules replace its global labels). Setting versioning also resets
// range, because a range only means something in the versioning it was
// written for.
func (c *Config) For(image string) Resolved {
	r := Resolved{
		Allow:     "major",
		Labels:    c.PullRequests.Labels,
		Reviewers: c.PullRequests.Reviewers,
	}
	for _, p := range c.Policies {
		// Patterns were validated on load, so an error cannot happen here.
		if ok, _ := doublestar.Match(p.Match, image); !ok {
			continue
		}
		set(&r.Skip, p.Skip)
		set(&r.Allow, p.Allow)
		set(&r.Pattern, p.Pattern)
		if p.Versioning != nil {
			r.Versioning, r.Range = *p.Versioning, ""
		}
		set(&r.Range, p.Range)
		set(&r.Pin, p.Pin)
		setList(&r.Ignore, p.Ignore)
		setList(&r.Labels, p.Labels)
		setList(&r.Reviewers, p.Reviewers)
		setList(&r.Automerge, p.Automerge)
	}
	// Callers get their own lists: a Resolved is never an alias into c.
	r.Ignore, r.Labels = slices.Clone(r.Ignore), slices.Clone(r.Labels)
	r.Reviewers, r.Automerge = slices.Clone(r.Reviewers), slices.Clone(r.Automerge)
	return r
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func setList(dst *[]string, v []string) {
	if v != nil {
		*dst = v
	}
}

// Mirrors maps registry host ("docker.io") to mirror URL for the registries
// that have one.
func (c *Config) Mirrors() map[string]string {
	m := map[string]string{}
	for host, r := range c.Registries {
		if r.Mirror != "" {
			m[host] = r.Mirror
		}
	}
	return m
}

// Included reports whether the file at relPath (slash-separated, relative to
// the repository root) is to be scanned: it matches a path glob and no
// exclude glob.
func (c *Config) Included(relPath string) bool {
	p := path.Clean(strings.TrimPrefix(relPath, "./"))
	if p == "." || p == ".." || strings.HasPrefix(p, "../") || path.IsAbs(p) {
		return false // outside the repository: never ours to touch
	}
	for _, g := range append([]string{gitExclude}, c.Exclude...) {
		if ok, _ := doublestar.Match(g, p); ok {
			return false
		}
	}
	paths := c.Paths
	if len(paths) == 0 {
		paths = DefaultPaths // a Config built in code rather than loaded
	}
	for _, g := range paths {
		if ok, _ := doublestar.Match(g, p); ok {
			return true
		}
	}
	return false
}
