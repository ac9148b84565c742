package config

import (
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// namePattern is what a group or environment name may be: it goes into
// branch names and PR bodies, so nothing git or markdown would read
// specially.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

func nameProblem(s string) string {
	switch {
	case len(s) > 63:
		return "must be at most 63 characters"
	case !namePattern.MatchString(s) || strings.Contains(s, "..") || strings.HasSuffix(s, ".lock"):
		return fmt.Sprintf("must be letters, digits, \".\", \"_\" or \"-\", starting and ending with a letter or digit (it names branches), got %q", s)
	}
	return ""
}

// checkName reports a missing or unusable name of a group or environment.
func (d *decoder) checkName(m mapping, what, example string) {
	if m.keys["name"] == nil {
		d.errorf(m.node, "%s needs a \"name\", such as %q", what, example)
	} else if n := m.value(d, "name"); n != nil {
		if msg := nameProblem(n.Value); msg != "" {
			d.errorf(n, "\"name\" %s", msg)
		}
	}
}

// checkImageGlobs reports a missing or empty list of image-name globs under
// key, and every glob in it that is invalid or can never fit a normalized
// name.
func (d *decoder) checkImageGlobs(m mapping, key, what string) {
	if n := m.vals[key]; n == nil || isNull(n) || (n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
		at := m.node
		if m.keys[key] != nil {
			at = m.keys[key]
		}
		d.errorf(at, "%s needs %q: globs over image names, such as [\"ghcr.io/acme/**\"]", what, key)
		return
	}
	for i, n := range m.items(d, key) {
		if n == nil {
			continue
		}
		if msg := imageGlobProblem(n.Value); msg != "" {
			d.errorf(n, "\"%s[%d]\" %s", key, i, msg)
		}
	}
}

func (g *Group) check(d *decoder, m mapping) {
	d.checkName(m, "group", "openstack")
	d.checkImageGlobs(m, "match", "group")
}

func (e *Environment) check(d *decoder, m mapping) {
	d.checkName(m, "environment", "production")
	if n := m.vals["paths"]; n == nil || isNull(n) || (n.Kind == yaml.SequenceNode && len(n.Content) == 0) {
		d.errorf(m.node, "environment needs \"paths\": globs of its files, such as [\"envs/production/**\"]")
	}
	for i, n := range m.items(d, "paths") {
		if n != nil {
			if msg := globProblem(n.Value); msg != "" {
				d.errorf(n, "\"paths[%d]\" %s", i, msg)
			}
		}
	}
	if n := m.value(d, "promoteFrom"); n != nil && e.PromoteFrom == "" {
		d.errorf(n, "\"promoteFrom\" must name an environment (leave it out to update as usual)")
	}
	if m.value(d, "promoteFrom") == nil {
		for _, key := range []string{"soak", "requireStatus"} {
			if k := m.keys[key]; k != nil {
				d.errorf(k, "%q only applies with \"promoteFrom\": it is a condition on the environment a version is promoted from", key)
			}
		}
	}
	first := map[string]*yaml.Node{}
	for i, n := range m.items(d, "requireStatus") {
		switch {
		case n == nil:
		case strings.TrimSpace(n.Value) == "":
			d.errorf(n, "\"requireStatus[%d]\" must not be empty", i)
		case first[n.Value] != nil:
			d.errorf(n, "\"requireStatus[%d]\" repeats %q (first at line %d)", i, n.Value, first[n.Value].Line)
		default:
			first[n.Value] = n
		}
	}
}

// dnsLabel is a Kubernetes namespace name (RFC 1123 label).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Kubernetes label keys ([prefix/]name) and values.
var (
	labelName   = regexp.MustCompile(`^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`)
	labelPrefix = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

func (p *Prepull) check(d *decoder, m mapping) {
	d.checkImageGlobs(m, "match", "prepull")
	switch n := m.value(d, "manifest"); {
	case m.keys["manifest"] == nil:
		d.errorf(m.node, "prepull needs \"manifest\": the file imagebot keeps the pre-pull DaemonSet in, such as platform/prepull/daemonset.yaml")
	case n == nil:
	case repoFileProblem(p.Manifest) != "":
		d.errorf(n, "\"manifest\" %s", repoFileProblem(p.Manifest))
	case !strings.HasSuffix(p.Manifest, ".yaml") && !strings.HasSuffix(p.Manifest, ".yml"):
		d.errorf(n, "\"manifest\" must be a .yaml or .yml file, got %q", p.Manifest)
	}
	if n := m.value(d, "namespace"); n != nil && (len(p.Namespace) > 63 || !dnsLabel.MatchString(p.Namespace)) {
		d.errorf(n, "\"namespace\" must be a Kubernetes namespace name (lowercase letters, digits and \"-\", at most 63), got %q", p.Namespace)
	}
	if n := m.value(d, "nodeSelector"); n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], resolve(n.Content[i+1])
			if msg := labelKeyProblem(k.Value); msg != "" {
				d.errorf(k, "nodeSelector key %q %s", k.Value, msg)
			}
			if !d.bad[v] && (len(v.Value) > 63 || (v.Value != "" && !labelName.MatchString(v.Value))) {
				d.errorf(v, "nodeSelector value %q must be a Kubernetes label value (at most 63 letters, digits, \"-\", \"_\", \".\")", v.Value)
			}
		}
	}
	if m.vals["lead"] == nil {
		p.Lead = DefaultPrepullLead
	}
}

// labelKeyProblem checks a Kubernetes label key, [prefix/]name.
func labelKeyProblem(k string) string {
	prefix, name, hasPrefix := strings.Cut(k, "/")
	if !hasPrefix {
		prefix, name = "", k
	}
	switch {
	case hasPrefix && (len(prefix) > 253 || !labelPrefix.MatchString(prefix)):
		return "must have a DNS name as its prefix, such as imagebot.dev/prepull"
	case len(name) > 63 || !labelName.MatchString(name):
		return "must be a Kubernetes label key, such as imagebot.dev/prepull"
	}
	return ""
}

// checkRollouts holds groups and environments to the rules that span
// entries: unique names, and promoteFrom naming another environment without
// a cycle.
func (c *Config) checkRollouts(d *decoder, m mapping) {
	d.uniqueNames(m.items(d, "groups"), func(i int) string { return c.Groups[i].Name }, "group")
	envs := m.items(d, "environments")
	d.uniqueNames(envs, func(i int) string { return c.Environments[i].Name }, "environment")
	byName := map[string]int{}
	for i, n := range envs {
		if n != nil {
			byName[c.Environments[i].Name] = i
		}
	}
	for i, n := range envs {
		if n == nil || c.Environments[i].PromoteFrom == "" {
			continue
		}
		from, at := c.Environments[i].PromoteFrom, ownValue(n, "promoteFrom")
		j, ok := byName[from]
		switch {
		case from == c.Environments[i].Name:
			d.errorf(at, "\"promoteFrom\" must name another environment, not %q itself", from)
		case !ok:
			d.errorf(at, "\"promoteFrom\" names no environment: %q%s", from, suggest(from, envNames(c.Environments)))
		default:
			if cycle := promotionCycle(c.Environments, j, i); cycle != "" {
				d.errorf(at, "\"promoteFrom\" makes a cycle: %s", cycle)
			}
		}
	}
}

// promotionCycle follows promoteFrom from environment j and returns the
// cycle ("a <- b <- a") when it comes back to start, "" when it ends. Each
// environment has one promoteFrom, so len(envs) steps suffice.
func promotionCycle(envs []Environment, j, start int) string {
	chain := []string{envs[start].Name, envs[j].Name}
	for range envs {
		if j == start {
			return strings.Join(chain, " <- ")
		}
		next := -1
		for k := range envs {
			if envs[j].PromoteFrom != "" && envs[k].Name == envs[j].PromoteFrom {
				next = k
				break
			}
		}
		if next < 0 {
			return ""
		}
		j = next
		chain = append(chain, envs[j].Name)
	}
	return ""
}

func envNames(envs []Environment) []string {
	out := make([]string, len(envs))
	for i, e := range envs {
		out[i] = e.Name
	}
	return out
}

// uniqueNames reports a name used twice among items. Names are compared
// without case: they name branches, and two branches that differ only in
// case clash on macOS and Windows checkouts.
func (d *decoder) uniqueNames(items []*yaml.Node, name func(int) string, what string) {
	first := map[string]*yaml.Node{}
	for i, n := range items {
		if n == nil || name(i) == "" {
			continue
		}
		at, key := ownValue(n, "name"), strings.ToLower(name(i))
		if f := first[key]; f != nil {
			d.errorf(at, "%s name %q is already used at line %d (names are compared without case: they name branches)", what, name(i), f.Line)
			continue
		}
		first[key] = at
	}
}

// ownValue returns the value node of key in mapping n, or n itself when the
// key comes from a merge or is missing: a place to point an error at.
func ownValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key && n.Content[i].ShortTag() == "!!str" {
			return resolve(n.Content[i+1])
		}
	}
	return n
}
