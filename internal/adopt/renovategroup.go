package adopt

import (
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/scan"
)

// group adds the rule's images to the group groupName names; rules that
// share a group name share the group. imagebot groups whole images, so a
// group scoped to files takes the images of those files that are used
// nowhere else; a member that fits nothing in the repository is left out
// (it is another kind of dependency, or not there), and a templated name
// (one group per directory) cannot be expressed.
func (c *renovate) group(where string, g *jnode, globs, paths []string) {
	if strings.Contains(g.str, "{{") {
		c.note(g, "%s: groupName %q is a template (a group per file or directory): imagebot's groups have fixed names; group not converted", where, g.str)
		return
	}
	members := c.members(where, g, globs, paths)
	if len(members) == 0 {
		return
	}
	name := slug(g.str)
	for i := range c.d.groups {
		if c.d.groups[i].Name == name {
			c.d.groups[i].Match = unique(append(c.d.groups[i].Match, members...))
			return
		}
	}
	c.d.groups = append(c.d.groups, config.Group{Name: name, Match: members})
	if c.d.groupNotes == nil {
		c.d.groupNotes = map[string][]string{}
	}
	c.d.groupNotes[name] = []string{"groupName " + `"` + g.str + `"` + "."}
}

// members are the globs of a group: with paths, the names of the images
// in those files; in a rule for docker images, its globs; else those that
// fit an image or chart of the repository, since a rule that names no
// datasource may well be about npm packages or Helm charts.
func (c *renovate) members(where string, g *jnode, globs, paths []string) []string {
	var out, absent, elsewhere []string
	switch {
	case paths == nil && c.forImages:
		out = globs
	case paths == nil:
		for _, gl := range globs {
			if slices.ContainsFunc(c.all, func(r scan.Ref) bool { return r.Image != "" && fits([]string{gl}, r.Image) }) {
				out = append(out, gl)
			} else {
				absent = append(absent, gl)
			}
		}
	default:
		for _, r := range c.all {
			if r.Image == "" || !fits(globs, r.Image) || !fits(paths, r.File) || slices.Contains(out, globQuote(r.Image)) || slices.Contains(elsewhere, r.Image) {
				continue
			}
			if i := slices.IndexFunc(c.all, func(o scan.Ref) bool { return o.Image == r.Image && !fits(paths, o.File) }); i >= 0 {
				elsewhere = append(elsewhere, r.Image)
				c.note(g, "%s: group %q: %s is also used in %s, outside the rule's files, and imagebot groups whole images; left out of the group", where, g.str, r.Image, c.all[i].File)
				continue
			}
			out = append(out, globQuote(r.Image))
		}
	}
	if len(absent) > 0 {
		c.note(g, "%s: group %q: %s %s no image or chart of this repository (another kind of dependency?); left out of the group", where, g.str, strings.Join(absent, ", "), plural(len(absent), "fits", "fit"))
	}
	if len(out) == 0 {
		c.note(g, "%s: group %q has no image or chart of this repository left; group not converted", where, g.str)
	}
	return out
}
