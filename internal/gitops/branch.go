package gitops

import (
	"cmp"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/rollout"
)

// group is the updates that one branch and PR carry: one image stream's,
// or a config group's, an environment's promotion, the pre-pull, a
// rollback.
type group struct {
	Branch string
	// Kind is "" for one image stream's updates, kindGroup for a config
	// group's, else the plan.Kind of its updates.
	Kind string
	Name string // the config group, if any
	Env  string // a promotion's environment
	// Image is the image every update moves, "" when they move several.
	Image   string
	Updates []plan.Update
	// Infos is what the registry says about each update's new image, in
	// the order of Updates (nil entries when unknown); filled only when a
	// PR body is written.
	Infos []*registry.Info
}

// info is the registry's description of the i-th update's new image, or nil.
func (g group) info(i int) *registry.Info {
	if i < len(g.Infos) {
		return g.Infos[i]
	}
	return nil
}

// changes are every edit the group's updates make.
func (g group) changes() []plan.Change {
	var cs []plan.Change
	for _, u := range g.Updates {
		cs = append(cs, u.Changes...)
	}
	return cs
}

// groups gives every update of the plan a branch: see groupsKeeping.
func groups(p *plan.Plan, prefix string) []group { return groupsKeeping(p, prefix, nil) }

// groupsKeeping sorts the plan's updates onto branches. Updates of a kind
// or a config group share a branch named for it (rollout.go); the others
// get their own branch, named from the image and the stream of the target
// tag, never from the version, so a newer version reuses the branch (and
// the open PR) of the one before. Two updates of one image and stream in
// one plan (busybox:1.36.0 and busybox:latest both moving to 1.37.0) are
// told apart by their old tag. An update an open PR already carries (same
// image, same old tag) keeps that PR's branch: a newer version moves the
// open PR even when another tag of the stream now needs its own branch.
// open maps image+"\x00"+from to a branch.
func groupsKeeping(p *plan.Plan, prefix string, open map[string]string) []group {
	var plain []plan.Update
	shared := map[string]*group{}
	for _, u := range p.Updates {
		g := sharedGroup(prefix, u)
		if g == nil {
			plain = append(plain, u)
			continue
		}
		if have := shared[g.Branch]; have != nil {
			have.Updates = append(have.Updates, u)
			if have.Image != u.Image {
				have.Image = ""
			}
			continue
		}
		g.Image, g.Updates = u.Image, []plan.Update{u}
		shared[g.Branch] = g
	}
	out := streamGroups(plain, prefix, open)
	for _, g := range shared {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b group) int { return cmp.Compare(a.Branch, b.Branch) })
	return out
}

// streamGroups gives each update its own branch, named from its stream.
func streamGroups(ups []plan.Update, prefix string, open map[string]string) []group {
	branch := make([]string, len(ups))
	taken := map[string]bool{}
	for i, u := range ups {
		if b, ok := open[u.Image+"\x00"+u.From]; ok && !taken[b] {
			branch[i], taken[b] = b, true
		}
	}
	count := map[string]int{}
	for i, u := range ups {
		if branch[i] == "" {
			count[branchName(prefix, u.Image, u.To)]++
		}
	}
	out := make([]group, 0, len(ups))
	for i, u := range ups {
		b := branch[i]
		if b == "" {
			b = branchName(prefix, u.Image, u.To)
			if count[b] > 1 || taken[b] {
				b += "-from-" + sanitize(u.From)
			}
		}
		out = append(out, group{Branch: b, Image: u.Image, Updates: []plan.Update{u}})
	}
	return out
}

// branchName is prefix + image + stream: "imagebot/docker.io-library-nginx",
// "imagebot/docker.io-library-redis-alpine".
func branchName(prefix, image, tag string) string {
	name := prefix + sanitize(image)
	if s := stream(tag); s != "" {
		name += "-" + s
	}
	return name
}

// stream names the family of a tag by its non-digit parts: "alpine" for
// 7.2.5-alpine, "rev-b" for 2.6.3-rev1-b1.2, "main" for
// main-20240612-a0b1c2d, "" for 1.26.1 and v1.9.0. Tags of one stream
// replace each other; tags of two streams never do. A commit id is no part
// of it, so that a newer build keeps the branch.
func stream(tag string) string { return sanitize(rollout.Stream(tag)) }

// sanitize keeps what git allows in a ref name and humans can read.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteRune('-')
		}
	}
	out := b.String()
	for strings.Contains(out, "..") { // git refuses ".." anywhere ("1...2" is a valid tag)
		out = strings.ReplaceAll(out, "..", ".")
	}
	out = strings.Trim(out, "-.")
	if s, ok := strings.CutSuffix(out, ".lock"); ok { // and a name ending in ".lock"
		out = s + "-lock"
	}
	return out
}

// shortName is how people write an image: "nginx" for
// docker.io/library/nginx, "bitnami/kubectl" for docker.io/bitnami/kubectl.
func shortName(image string) string {
	if s, ok := strings.CutPrefix(image, "docker.io/library/"); ok {
		return s
	}
	if s, ok := strings.CutPrefix(image, "docker.io/"); ok {
		return s
	}
	return image
}
