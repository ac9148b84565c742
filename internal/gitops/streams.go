package gitops

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/policy"
)

// What issue 26 changed in how image streams take branches: one group per
// stream and target version (streamGroups, branch.go), the split of a
// major update from the newest within the current major
// (separateMajorMinor), and the adoption of the PRs of releases that opened
// one PR per old version.

// stepUpdate is an image stream's update and whether it goes to the
// stream's major branch.
type stepUpdate struct {
	plan.Update
	major bool
}

// splitUpdate is u as the branches of its stream take it: with separate,
// a major update goes to the major branch, and the newest version within
// the current major it carries to the stream's own.
func splitUpdate(u plan.Update, separate bool) []stepUpdate {
	if !separate || u.Type != "major" {
		u.Minor = nil
		return []stepUpdate{{Update: u}}
	}
	out := []stepUpdate{{Update: u, major: true}}
	if m := u.Minor; m != nil {
		out = append(out, stepUpdate{Update: *m})
	}
	out[0].Minor = nil
	return out
}

// splitShared splits, with separate, each config group's PR in two: the
// members' major updates on the group's major branch, the newest within
// each member's current major on the group's own, as for one image stream.
// A lockstep group's plan already chose one tag for each side. Other
// shared branches (promotions, rollbacks, the pre-pull) move to exactly
// the version their rollout names, and carry no second update.
func splitShared(gs []group, separate bool) []group {
	var out []group
	for _, g := range gs {
		if g.Kind == "" {
			out = append(out, g)
			continue
		}
		minor, major := g, g
		minor.Updates, major.Updates = nil, nil
		major.Branch, major.Major = g.Branch+majorSuffix, true
		for _, u := range g.Updates {
			for _, su := range splitUpdate(u, separate && g.Kind == kindGroup) {
				if su.major {
					major.Updates = append(major.Updates, su.Update)
				} else {
					minor.Updates = append(minor.Updates, su.Update)
				}
			}
		}
		for _, h := range []group{minor, major} {
			if len(h.Updates) > 0 {
				h.Image = h.Updates[0].Image
				for _, u := range h.Updates {
					if u.Image != h.Image {
						h.Image = ""
					}
				}
				out = append(out, h)
			}
		}
	}
	return out
}

// natural orders tags as people read them: runs of digits by their value
// (1.9.0 before 1.10.0), the rest by its bytes.
func natural(a, b string) int {
	for a != "" && b != "" {
		da, db := isDigit(a[0]), isDigit(b[0])
		if da != db {
			return cmp.Compare(a, b)
		}
		na, nb := runLen(a, da), runLen(b, db)
		x, y := a[:na], b[:nb]
		if da {
			x, y = strings.TrimLeft(x, "0"), strings.TrimLeft(y, "0")
			if c := cmp.Compare(len(x), len(y)); c != 0 {
				return c
			}
		}
		if c := cmp.Compare(x, y); c != 0 {
			return c
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// runLen is the length of s's leading run of digits (or of non-digits).
func runLen(s string, digits bool) int {
	i := 0
	for i < len(s) && isDigit(s[i]) == digits {
		i++
	}
	return i
}

// carriers maps what each image stream's group carries (carriedKey) to
// its branch.
func carriers(gs []group) map[string]string {
	out := map[string]string{}
	for _, g := range gs {
		if g.Kind != "" {
			continue
		}
		for _, u := range g.Updates {
			out[carriedKey(u.Image, u.From, g.Major)] = g.Branch
		}
	}
	return out
}

// carrier is the branch that carries the moves of m, an open PR on branch
// that this run no longer needs, when another stream group took them all
// (the PRs of releases that opened one per old version), else "".
func (r *runner) carrier(m marker, branch string) string {
	if m.Kind != "" {
		return ""
	}
	by := ""
	for _, mv := range m.Moves {
		b := r.carriers[carriedKey(mv.Image, mv.From, r.o.SeparateMajorMinor && policy.Type(mv.From, mv.To) == "major")]
		if b == "" || b == branch || (by != "" && b != by) {
			return ""
		}
		by = b
	}
	return by
}

// supersededComment says why imagebot closes a PR whose places another
// PR carries now.
func (r *runner) supersededComment(by string) string {
	where := lit(by)
	if pr, ok := r.res.PullRequests[by]; ok && pr.Number > 0 {
		where = r.num(pr.Number) // #12, or !12 where #12 is an issue or work item
	}
	return fmt.Sprintf("imagebot now proposes one pull request per image stream and version, carrying every place that moves to it: "+
		"%s carries this one's places, so imagebot closes this one.", where)
}
