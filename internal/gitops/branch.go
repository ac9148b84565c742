package gitops

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
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
	// Major says the group is the major branch of its stream or config
	// group (separateMajorMinor): closing its PR declines a major line.
	Major bool
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
func groups(p *plan.Plan, prefix string) []group { return groupsKeeping(p, prefix, openBranches{}) }

// openBranches is what the open PRs say about the branches they hold.
type openBranches struct {
	// carried maps carriedKey(image, from, major) to the branches of the
	// open PRs that move it, sorted.
	carried map[string][]string
	// holder maps a branch to the stream (streamKey) that its open PR
	// moves, for one image stream's PRs.
	holder map[string]string
}

// carriedKey is what an open PR of one image stream carries: the image
// from one old tag, on the major branch or the other (separateMajorMinor).
func carriedKey(image, from string, major bool) string {
	k := image + "\x00" + from
	if major {
		k += "\x00major"
	}
	return k
}

// carry records that the open PR on branch moves image from from.
func (o *openBranches) carry(image, from string, major bool, branch string) {
	k := carriedKey(image, from, major)
	if !slices.Contains(o.carried[k], branch) {
		o.carried[k] = append(o.carried[k], branch)
		slices.Sort(o.carried[k])
	}
}

// groupsKeeping sorts the plan's updates onto branches. Updates of a kind
// or a config group share a branch named for it (rollout.go); the others
// go to the branch of their image stream and target version (streamGroups).
func groupsKeeping(p *plan.Plan, prefix string, open openBranches) []group {
	return groupsSplit(p, prefix, open, false)
}

// groupsSplit is groupsKeeping; with separate (separateMajorMinor), an
// image stream's major update goes to a branch of its own (majorBranch),
// and the update within the current major it carries (plan.Update.Minor)
// to the stream's branch, so that declining the one leaves the other.
func groupsSplit(p *plan.Plan, prefix string, open openBranches, separate bool) []group {
	var plain []stepUpdate
	shared := map[string]*group{}
	for _, u := range p.Updates {
		g := sharedGroup(prefix, u)
		if g == nil {
			plain = append(plain, splitUpdate(u, separate)...)
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
	out = splitShared(out, separate)
	slices.SortFunc(out, func(a, b group) int { return cmp.Compare(a.Branch, b.Branch) })
	return out
}

// streamGroups makes one group per image stream and target version: every
// place that moves to that version is in it, whatever its old version
// (releases/cnpg-1.15.0.yaml ... cnpg-1.29.0.yaml all move in one PR). The
// branch is named from the image and the stream of the target tag, never
// from the version, so a newer version reuses the branch (and the open PR)
// of the one before; a major update's branch ends in "-major". Two targets
// of one stream in one plan (a policy scoped by path) are told apart by
// the first old tag of each.
//
// An update an open PR already carries (same image, same old tag, same
// side of separateMajorMinor) keeps that PR's branch: a newer version moves
// the open PR. When a group's updates are carried by several open PRs (the
// PRs of releases before this rule, one per old version), the group keeps
// the stream's own branch if one of them holds it, else the first; the
// other PRs are no longer needed and are closed, saying which carries
// their places now.
//
// Image names are not injective once sanitised (ghcr.io/acme/a-b and
// ghcr.io/acme-a/b both give ghcr.io-acme-a-b), so a readable name that
// two streams would share gets a short hash of the exact stream
// (streamBranch), except for the stream whose open PR holds it already.
// A name that no other stream shares stays as it always was, so that an
// upgrade moves no existing PR.
func streamGroups(ups []stepUpdate, prefix string, open openBranches) []group {
	type key struct {
		stream, to string
		major      bool
	}
	var keys []key
	byKey := map[key][]plan.Update{}
	var flat []plan.Update
	for _, u := range ups {
		k := key{streamKey(u.Image, u.To), u.To, u.major}
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], u.Update)
		flat = append(flat, u.Update)
	}
	slices.SortFunc(keys, func(a, b key) int {
		return cmp.Or(cmp.Compare(a.stream, b.stream), cmp.Compare(a.to, b.to), boolCompare(a.major, b.major))
	})
	named := streamBranches(flat, prefix, open.holder)
	base := func(k key) string {
		b := named[k.stream]
		if k.major {
			b += majorSuffix
		}
		return b
	}
	branch := map[key]string{}
	taken := map[string]bool{}
	for _, k := range keys {
		var held []string
		for _, u := range byKey[k] {
			for _, b := range open.carried[carriedKey(u.Image, u.From, k.major)] {
				if !taken[b] && !slices.Contains(held, b) {
					held = append(held, b)
				}
			}
		}
		if len(held) == 0 {
			continue
		}
		slices.Sort(held)
		b := held[0]
		if slices.Contains(held, base(k)) {
			b = base(k)
		}
		branch[k], taken[b] = b, true
	}
	count := map[string]int{}
	for _, k := range keys {
		if branch[k] == "" {
			count[base(k)]++
		}
	}
	out := make([]group, 0, len(keys))
	for _, k := range keys {
		us := byKey[k]
		slices.SortStableFunc(us, func(a, b plan.Update) int { return natural(a.From, b.From) })
		b := branch[k]
		if b == "" {
			b = base(k)
			if count[b] > 1 || taken[b] {
				b += "-from-" + sanitize(us[0].From)
			}
		}
		out = append(out, group{Branch: b, Image: us[0].Image, Updates: us, Major: k.major})
	}
	return out
}

// majorSuffix ends the branch of an image stream's major updates
// (separateMajorMinor): "imagebot/docker.io-library-node-major".
const majorSuffix = "-major"

func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// streamBranches names the branch of each stream (streamKey) of ups: its
// readable name, unless another stream of ups has the same one, or an open
// PR of another stream holds it; then the readable name and a hash of the
// exact stream.
func streamBranches(ups []plan.Update, prefix string, holder map[string]string) map[string]string {
	streams := map[string][]string{} // readable name -> stream keys
	for _, u := range ups {
		k, b := streamKey(u.Image, u.To), branchName(prefix, u.Image, u.To)
		if !slices.Contains(streams[b], k) {
			streams[b] = append(streams[b], k)
		}
	}
	out := map[string]string{}
	for b, keys := range streams {
		for _, k := range keys {
			h, held := holder[b]
			switch {
			case held && h == k, !held && len(keys) == 1:
				out[k] = b
			default:
				out[k] = b + "-" + shortHash(k)
			}
		}
	}
	return out
}

// streamKey is the exact image stream an update belongs to, before any
// sanitising: what a branch must be unique for.
func streamKey(image, tag string) string { return image + "\x00" + rollout.Stream(tag) }

// shortHash tells apart the streams whose readable branch names collide.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// branchName is prefix + image + stream: "imagebot/docker.io-library-nginx",
// "imagebot/docker.io-library-redis-alpine"; a chart's without its
// repository's scheme, after "chart-".
func branchName(prefix, image, tag string) string {
	name := prefix + sanitize(branchImage(image))
	if s := stream(tag); s != "" {
		name += "-" + s
	}
	return name
}

// branchImage is what a branch says of image: a chart's name without its
// scheme, "imagebot/chart-ghcr.io-stefanprodan-charts-podinfo".
func branchImage(image string) string {
	if _, rest, ok := strings.Cut(image, "://"); ok {
		return "chart/" + rest
	}
	return image
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
