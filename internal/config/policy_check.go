package config

import (
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/policy"
)

func (p *Policy) check(d *decoder, m mapping) {
	p.Line = m.node.Line
	switch n := m.vals["match"]; {
	case n == nil:
		d.errorf(m.node, "policy needs a \"match\": the image names it applies to, such as \"ghcr.io/acme/**\"")
	case d.bad[n]:
	default:
		if msg := imageGlobProblem(p.Match); msg != "" {
			d.errorf(n, "\"match\" %s", msg)
		}
	}
	d.checkSpec(m, p)
	for _, key := range []string{"ignore", "labels", "reviewers"} {
		d.nonEmpty(m, key)
	}
	d.enumList(m, "automerge", automergeValues)
	d.enumList(m, "approval", approvalValues)
	d.enumList(m, "updateTypes", updateTypeValues)
	d.globList(m, "paths")
	for _, key := range []string{"paths", "updateTypes"} {
		if n := m.value(d, key); n != nil && n.Kind == yaml.SequenceNode && len(n.Content) == 0 {
			d.errorf(n, "%q must not be empty: leave it out for every %s", key, map[string]string{"paths": "file", "updateTypes": "update type"}[key])
		}
	}
	d.checkUpdateTypes(m)
}

// prKeys are the keys a policy with updateTypes may hold: the update type
// is known only once the candidate is chosen, so such a policy can say
// what happens to the pull request, not which tag is chosen or how it is
// checked.
var prKeys = []string{"match", "paths", "updateTypes", "labels", "reviewers", "automerge", "approval"}

func (d *decoder) checkUpdateTypes(m mapping) {
	if m.value(d, "updateTypes") == nil {
		return
	}
	for key, k := range m.keys {
		if !slices.Contains(prKeys, key) {
			d.errorf(k, "%q cannot go with \"updateTypes\": the update type is known only after the tag was chosen, so such a policy may only set labels, reviewers, automerge and approval (put %q in a policy without updateTypes)", key, key)
		}
	}
}

// checkSpec validates the keys that internal/policy interprets by compiling
// them with policy.New, the code that applies them at plan time: what
// validate accepts, plan accepts. The error is put at the line of the key
// that causes it by compiling each key alone; only a rule that spans keys
// is reported at the entry.
func (d *decoder) checkSpec(m mapping, p *Policy) {
	before := len(d.errs)
	d.checkRange(m, p)
	whole := policy.Spec{Ignore: p.Ignore}
	for _, f := range specFields {
		n := m.value(d, f.key)
		switch {
		case n == nil:
		case n.Value == "":
			// policy.New reads "" as "not set"; written out, it is a slip.
			d.badValue(n, "%q must not be empty (leave it out for the default)", f.key)
		default:
			f.set(&whole, n.Value)
		}
	}
	err := compiles(whole)
	if err == nil {
		return
	}
	for _, f := range specFields {
		n := m.value(d, f.key)
		if n == nil {
			continue
		}
		var alone policy.Spec
		if f.key == "range" {
			alone.Versioning = "semver" // checkRange holds the entry to that
		}
		if f.key == "pattern" {
			alone.Order = whole.Order // an order's pattern needs no version group
		}
		f.set(&alone, n.Value)
		if e := compiles(alone); e != nil {
			d.errorf(n, "%v%s", e, specHint(f, n.Value))
		}
	}
	for _, n := range m.items(d, "ignore") {
		if n == nil {
			continue
		}
		if e := compiles(policy.Spec{Ignore: []string{n.Value}}); e != nil {
			d.errorf(n, "%v (an entry is an exact tag or a path.Match glob such as \"1.27.*\")", e)
		}
	}
	if len(d.errs) == before {
		d.errorf(m.node, "policy: %v", err)
	}
}

// checkRange holds a range to the versioning of its own entry: which other
// policies also fit an image is only known per image, so a range that
// relied on an earlier entry's versioning would work for some images and
// fail for others.
func (d *decoder) checkRange(m mapping, p *Policy) {
	n := m.value(d, "range")
	if n == nil {
		return
	}
	switch v := m.vals["versioning"]; {
	case v == nil || isNull(v):
		d.errorf(n, "\"range\" needs \"versioning: semver\" in the same policy")
	case d.bad[v] || compiles(policy.Spec{Versioning: *p.Versioning}) != nil:
		// The versioning has its own error.
	case *p.Versioning != "semver":
		d.errorf(n, "\"range\" only works with \"versioning: semver\", not %q", *p.Versioning)
	}
}

// specField is one string key of a policy entry that policy.Spec carries.
type specField struct {
	key string
	set func(s *policy.Spec, v string)
	// words are offered as "did you mean" when policy.New rejects a
	// value; policy.New alone decides what is valid.
	words []string
}

var specFields = []specField{
	{"allow", func(s *policy.Spec, v string) { s.Allow = v }, []string{"major", "minor", "patch"}},
	{"versioning", func(s *policy.Spec, v string) { s.Versioning = v }, []string{"semver", "numeric", "alphabetical"}},
	{"pin", func(s *policy.Spec, v string) { s.Pin = v }, []string{"tag", "digest"}},
	{"pattern", func(s *policy.Spec, v string) { s.Pattern = v }, nil},
	{"range", func(s *policy.Spec, v string) { s.Range = v }, nil},
	{"order", func(s *policy.Spec, v string) { s.Order = v }, []string{policy.OrderCreated, policy.OrderFirstSeen}},
}

func compiles(s policy.Spec) error {
	_, err := policy.New(s)
	return err
}

// specHint suggests the closest word that policy.New accepts, and says that
// a policy value is written in lower case.
func specHint(f specField, v string) string {
	var ok []string
	for _, w := range f.words {
		var s policy.Spec
		f.set(&s, w)
		if compiles(s) == nil {
			ok = append(ok, w)
		}
	}
	return suggest(strings.TrimSpace(v), ok)
}

// enumValue reports v at n unless it is one of options.
func (d *decoder) enumValue(n *yaml.Node, name, v string, options []string) {
	for _, o := range options {
		if v == o {
			return
		}
	}
	d.errorf(n, "%q must be one of %s, got %q%s", name, strings.Join(options, ", "), v, suggest(v, options))
}
