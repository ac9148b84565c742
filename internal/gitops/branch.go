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
	// carried maps image+"\x00"+from to the branch of the open PR that
	// moves it.
	carried map[string]string
	// holder maps a branch to the stream (streamKey) that its open PR
	// moves, for one image stream's PRs.
	holder map[string]string
}

// groupsKeeping sorts the plan's updates onto branches. Updates of a kind
// or a config group share a branch named for it (rollout.go); the others
// get their own branch, named from the image and the stream of the target
// tag, never from the version, so a newer version reuses the branch (and
// the open PR) of the one before. Two updates of one image and stream in
// one plan (busybox:1.36.0 and busybox:latest both moving to 1.37.0) are
// told apart by their old tag. An update an open PR already carries (same
// image, same old tag) keeps that PR's branch: a newer version moves the
// open PR even when another tag of the stream now needs its own branch.
//
// Image names are not injective once sanitised (ghcr.io/acme/a-b and
// ghcr.io/acme-a/b both give ghcr.io-acme-a-b), so a readable name that
// two streams would share gets a short hash of the exact stream
// (streamBranch), except for the stream whose open PR holds it already.
// A name that no other stream shares stays as it always was, so that an
// upgrade moves no existing PR.
func groupsKeeping(p *plan.Plan, prefix string, open openBranches) []group {
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
func streamGroups(ups []plan.Update, prefix string, open openBranches) []group {
	branch := make([]string, len(ups))
	taken := map[string]bool{}
	for i, u := range ups {
		if b, ok := open.carried[u.Image+"\x00"+u.From]; ok && !taken[b] {
			branch[i], taken[b] = b, true
		}
	}
	named := streamBranches(ups, prefix, open.holder)
	count := map[string]int{}
	for i, u := range ups {
		if branch[i] == "" {
			count[named[streamKey(u.Image, u.To)]]++
		}
	}
	out := make([]group, 0, len(ups))
	for i, u := range ups {
		b := branch[i]
		if b == "" {
			b = named[streamKey(u.Image, u.To)]
			if count[b] > 1 || taken[b] {
				b += "-from-" + sanitize(u.From)
			}
		}
		out = append(out, group{Branch: b, Image: u.Image, Updates: []plan.Update{u}})
	}
	return out
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
