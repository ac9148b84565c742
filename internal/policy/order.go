package policy

import (
	"fmt"
	"regexp"
	"slices"
)

// Orders for tags that carry no version (Spec.Order). The policy only
// selects the tags; the planner orders them, since both orders need what
// a listing does not say: when imagebot first saw a tag, or when its
// image was built.
const (
	OrderCreated   = "created"   // the image config's created time, or the created annotation
	OrderFirstSeen = "firstSeen" // when imagebot first saw the tag in the listing
)

func checkOrder(s Spec) error {
	switch s.Order {
	case "":
		return nil
	case OrderCreated, OrderFirstSeen:
	default:
		return fmt.Errorf("order %q: want created or firstSeen", s.Order)
	}
	if s.Versioning != "" {
		// Two orders for one set of tags: which one wins would be a guess.
		return fmt.Errorf("order %q: not with versioning %q, which orders tags by their version", s.Order, s.Versioning)
	}
	return nil
}

// Order returns "", OrderCreated or OrderFirstSeen as configured.
func (p *Policy) Order() string { return p.spec.Order }

// Builds are the tags of the listing an order policy may move current
// to, in listing order, current among them: with a pattern, the tags it
// matches; without, the tags of current's stream (its prefix and the
// form of its id: main-3f9a2c1 selects main-*, never sha-*) that carry
// no version and do not float, as `latest` does, whose build time would
// win every time. Ignored tags are left out. The error says why current
// itself is not selected, since nothing can be ordered against it.
func (x *Index) Builds(current string) ([]string, error) {
	ct := parseTag(current, x.windows)
	if _, ok := x.p.compared(current); !ok {
		return nil, fmt.Errorf(`tag %q does not match pattern "%s"`, current, x.p.spec.Pattern)
	}
	if x.p.pattern == nil && (ct.versioned() || ct.floats()) {
		return nil, fmt.Errorf("tag %q is not a build without a version: order %s needs a pattern to select the tags to order", current, x.p.spec.Order)
	}
	var out []string
	for _, e := range x.entries {
		t := e.t
		if x.p.ignored(t.raw) && t.raw != current {
			continue
		}
		if x.p.pattern != nil {
			if _, ok := x.p.compared(t.raw); !ok {
				continue
			}
		} else if t.versioned() || t.floats() || x.float.has(t) || buildShape(t.raw) != buildShape(current) {
			continue
		}
		out = append(out, t.raw)
	}
	if x.listed[current] && !slices.Contains(out, current) {
		out = append(out, current)
	}
	return out, nil
}

// idRun is a run of hex that holds a digit: a commit id or a number.
var idRun = regexp.MustCompile(`[0-9a-f]*[0-9][0-9a-f]*`)

// buildShape is a tag with its ids and numbers as "@": main-3f9a2c1 and
// main-a0b1c2d share "main-@", sha-3f9a2c1 is "sha-@".
func buildShape(tag string) string { return idRun.ReplaceAllString(tag, "@") }
