package config

import "time"

// Group is one entry of `groups:`: the images it matches move in one branch
// and pull request.
type Group struct {
	// Name is unique among groups and safe in a branch name (letters,
	// digits, ".", "_", "-"); the group's branch is named from it.
	Name string `yaml:"name"`
	// Match are doublestar globs over normalized image names, as a
	// policy's match.
	Match []string `yaml:"match"`
	// Lockstep moves every member to one tag that every member has, in one
	// commit; a release pushed to only some of the images waits.
	Lockstep bool `yaml:"lockstep"`
}

// GroupFor returns the first group, in file order, with a match that fits
// image (a normalized name), or nil when the image is in no group.
func (c *Config) GroupFor(image string) *Group {
	for i := range c.Groups {
		if anyMatch(c.Groups[i].Match, image) {
			return &c.Groups[i]
		}
	}
	return nil
}

// Environment is one entry of `environments:`: the files under Paths are one
// stage of a rollout.
type Environment struct {
	// Name is unique among environments and safe in a branch name.
	Name string `yaml:"name"`
	// Paths are doublestar globs of files, relative to the repository root.
	Paths []string `yaml:"paths"`
	// PromoteFrom names another environment. References in this one then
	// never take the registry's newest version: they get the version that
	// has been in PromoteFrom's files on the default branch for Soak, with
	// every RequireStatus context successful on the commit that brought it.
	// "" means this environment updates as usual.
	PromoteFrom string `yaml:"promoteFrom"`
	// Soak is how long a version must have been in PromoteFrom's files;
	// only with PromoteFrom.
	Soak Duration `yaml:"soak"`
	// RequireStatus are commit status or check names that must be
	// successful on that commit; only with PromoteFrom.
	RequireStatus []string `yaml:"requireStatus"`
}

// EnvironmentFor returns the first environment, in file order, with a path
// glob that fits file (slash-separated, relative to the repository root),
// or nil when the file is in no environment.
func (c *Config) EnvironmentFor(file string) *Environment {
	p, ok := repoPath(file)
	if !ok {
		return nil
	}
	for i := range c.Environments {
		if anyMatch(c.Environments[i].Paths, p) {
			return &c.Environments[i]
		}
	}
	return nil
}

// Prepull asks that an update of a matching image first be pulled onto the
// nodes by a DaemonSet that imagebot maintains in Manifest, and rolled out
// only once that has been on the default branch for Lead.
type Prepull struct {
	// Match are doublestar globs over normalized image names.
	Match []string `yaml:"match"`
	// Manifest is the path of the DaemonSet file, relative to the
	// repository root (.yaml or .yml). imagebot owns this file: it is
	// never scanned for updates (see Included).
	Manifest string `yaml:"manifest"`
	// Namespace is the DaemonSet's namespace, a DNS label;
	// DefaultPrepullNamespace when absent.
	Namespace string `yaml:"namespace"`
	// NodeSelector restricts the nodes that pre-pull, as a pod's
	// nodeSelector does.
	NodeSelector map[string]string `yaml:"nodeSelector"`
	// Lead is how long the pre-pull must have been on the default branch
	// before the rollout pull request opens; DefaultPrepullLead when
	// absent.
	Lead Duration `yaml:"lead"`
}

// DefaultPrepullLead is the lead when the file gives none: long enough for
// a sync tool to apply the DaemonSet and the nodes to pull.
const DefaultPrepullLead = Duration(30 * time.Minute)

// Matches reports whether image (a normalized name) is to be pre-pulled. It
// is false on a nil Prepull, so callers can ask cfg.Prepull.Matches(image)
// whether or not the file has a prepull section.
func (p *Prepull) Matches(image string) bool {
	return p != nil && anyMatch(p.Match, image)
}
