package gitops

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	"github.com/imagebot/imagebot/internal/plan"
)

// group is the updates that share one branch and so one pull request: the
// same image and the same stream of tags.
type group struct {
	Branch  string
	Image   string
	Updates []plan.Update
}

// groups sorts a plan's updates into branches. The branch name comes from the
// image and the stream of the target tag, never from a version, so a newer
// version reuses the branch (and the open PR) of the one before it.
func groups(p *plan.Plan, prefix string) []group {
	byBranch := map[string]*group{}
	var order []string
	for _, u := range p.Updates {
		b := branchName(prefix, u.Image, u.To)
		g, ok := byBranch[b]
		if !ok {
			g = &group{Branch: b, Image: u.Image}
			byBranch[b] = g
			order = append(order, b)
		}
		g.Updates = append(g.Updates, u)
	}
	out := make([]group, 0, len(order))
	for _, b := range order {
		out = append(out, *byBranch[b])
	}
	slices.SortFunc(out, func(a, b group) int { return cmp.Compare(a.Branch, b.Branch) })
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
// 7.2.5-alpine, "rev-b" for 2.6.3-rev1-b1.2, "" for 1.26.1 and v1.9.0. Tags
// of one stream replace each other; tags of two streams never do.
func stream(tag string) string {
	var parts []string
	for _, f := range strings.FieldsFunc(tag, func(r rune) bool { return unicode.IsDigit(r) || r == '.' || r == '-' || r == '_' }) {
		parts = append(parts, f)
	}
	if len(parts) > 0 && parts[0] == "v" && len(tag) > 1 && unicode.IsDigit(rune(tag[1])) {
		parts = parts[1:]
	}
	return sanitize(strings.Join(parts, "-"))
}

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
	return strings.Trim(strings.ReplaceAll(b.String(), "..", "."), "-.")
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
