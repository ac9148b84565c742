package adopt

import (
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// ignoringPresets bring Renovate's :ignoreModulesAndTests ignorePaths.
var ignoringPresets = []string{"config:recommended", "config:base", "config:best-practices", ":ignoreModulesAndTests"}

// ignorePaths converts ignorePaths into exclude entries. A config that
// sets none but extends a preset that brings :ignoreModulesAndTests gets
// that preset's list; one that sets its own replaces it, as in Renovate.
func (c *renovate) ignorePaths(root *jnode) {
	n := root.get("ignorePaths")
	if n == nil {
		ext, _ := root.get("extends").list()
		if slices.ContainsFunc(ext, func(p string) bool { return slices.Contains(ignoringPresets, p) }) {
			for _, k := range keptDirs {
				if k.name == "testdata" {
					continue // Go's; not in Renovate's list
				}
				c.d.exclude = append(c.d.exclude, excluded{glob: "**/" + k.name + "/**", why: k.why + " (Renovate's :ignoreModulesAndTests)"})
			}
		}
		return
	}
	for _, p := range c.strs(root, "ignorePaths") {
		g := strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
		if !strings.ContainsAny(g, "*?[{") {
			g = strings.TrimSuffix(g, "/") + "/**"
		}
		if !doublestar.ValidatePattern(g) || g == "" {
			c.note(n, "ignorePaths %q is not a glob imagebot reads; not converted", p)
			continue
		}
		c.d.exclude = append(c.d.exclude, excluded{glob: g, why: "ignorePaths"})
	}
}

// aliasHost is a registry host (and port) as Renovate's registryAliases
// keys name one; "$CI_REGISTRY" and other template variables are not.
var aliasHost = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$`)

// aliasPath is the path a registry alias may add after the host.
var aliasPath = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)*$`)

// registryAliases converts Renovate's registryAliases whose key is a
// registry host: imagebot asks the registry the alias stands for, as a
// mirror of that host. Other keys are variables imagebot does not expand.
func (c *renovate) registryAliases(n *jnode) {
	if n == nil {
		return
	}
	if n.kind != '{' {
		c.note(n, "registryAliases: want an object; not converted")
		return
	}
	for i, alias := range n.keys {
		v := n.vals[i]
		to := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v.str, "https://"), "http://"), "/")
		host, _, _ := strings.Cut(to, "/")
		switch {
		case v.kind != '"' || !aliasHost.MatchString(host) || !aliasPath.MatchString(strings.TrimPrefix(to, host)):
			c.note(v, "registryAliases %q: %q is not a registry host; not converted", alias, v.str)
			continue
		case !aliasHost.MatchString(alias) || (!strings.ContainsAny(alias, ".:") && alias != "localhost"):
			c.note(v, "registryAliases %q: imagebot does not expand variables in image names; write the registry %s in them instead", alias, v.str)
			continue
		}
		if host == "docker.io" || host == "index.docker.io" {
			to = "registry-1.docker.io" + strings.TrimPrefix(to, host)
		}
		if c.d.aliases == nil {
			c.d.aliases = map[string]string{}
		}
		scheme := "https://"
		if strings.HasPrefix(v.str, "http://") {
			scheme = "http://"
		}
		c.d.aliases[alias] = scheme + to
	}
}
