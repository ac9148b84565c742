package adopt

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/imagename"
)

// allTypes are the update types a plain `automerge: true` covers.
var allTypes = []string{"major", "minor", "patch", "build", "digest", "pin"}

// ruleActions are the settings of a rule that convert.
var ruleActions = map[string]bool{
	"enabled": true, "allowedVersions": true, "ignoreVersions": true, "versioning": true,
	"minimumReleaseAge": true, "stabilityDays": true, "groupName": true, "automerge": true,
	"labels": true, "addLabels": true, "reviewers": true, "additionalReviewers": true,
	"pinDigests": true, "dependencyDashboardApproval": true,
}

// imageManagers are Renovate's managers whose dependencies are the image
// references imagebot finds. The custom regex managers count only when the
// config's regex managers look up docker images.
var imageManagers = []string{"kubernetes", "helm-values", "helmv3", "kustomize", "docker-compose",
	"dockerfile", "flux", "argocd"}

var regexManagers = []string{"custom.regex", "regex"}

// matchers are the keys that say which images a rule is for.
var matchers = map[string]bool{
	"matchPackageNames": true, "matchDepNames": true, "matchPackagePrefixes": true,
	"matchPackagePatterns": true, "matchDatasources": true, "matchManagers": true,
	"matchUpdateTypes": true, "matchCategories": true, "description": true,
	"matchFileNames": true, "matchPaths": true,
}

// rule converts packageRules[i], or says why not. A rule for other
// datasources or managers is left out, never widened to every image.
func (c *renovate) rule(i int, r *jnode) {
	where := fmt.Sprintf("packageRules[%d] (%s:%d)", i, r.fileOr(c.file), r.line)
	c.rulesNotes = len(c.ns)
	ds, ok := r.get("matchDatasources").list()
	if ok && !slices.Contains(ds, "docker") {
		c.otherRules++
		return
	}
	c.forImages = ok
	if mg, ok := r.get("matchManagers").list(); ok && !c.managersConvert(where, r.get("matchManagers"), mg) {
		return
	}
	if cat, ok := r.get("matchCategories").list(); ok && !slices.Contains(cat, "docker") && !slices.Contains(cat, "kubernetes") {
		c.otherRules++
		return
	}
	for j, k := range r.keys {
		if !matchers[k] && !ruleActions[k] {
			if strings.HasPrefix(k, "match") || strings.HasPrefix(k, "exclude") {
				c.note(r.vals[j], "%s: %s: imagebot policies match image names and files only; rule not converted", where, k)
				return
			}
			c.note(r.vals[j], "%s: %s: not converted (%s)", where, k, whyNot(k))
		}
	}
	globs, ok := c.names(r)
	if !ok {
		return
	}
	if len(globs) == 0 {
		globs = []string{"**"}
	}
	paths, ok := c.paths(where, r)
	if !ok {
		return
	}
	var types []string
	if t := r.get("matchUpdateTypes"); t != nil {
		types, _ = t.list()
	}
	c.convertRule(where, r, globs, paths, types)
}

// imageManager reports whether a Renovate manager finds the image
// references imagebot updates.
func (c *renovate) imageManager(m string) bool {
	return slices.Contains(imageManagers, m) || (c.dockerRegex && slices.Contains(regexManagers, m))
}

// managersConvert says whether a rule scoped by matchManagers converts to
// a policy over every image, and notes why not or what that widens. A rule
// for regex managers only is about the images those managers find, which
// imagebot cannot tell from the others: it is skipped, not widened.
func (c *renovate) managersConvert(where string, at *jnode, mg []string) bool {
	list := strings.Join(mg, ", ")
	switch {
	case !slices.ContainsFunc(mg, c.imageManager):
		c.note(at, "%s: matchManagers %s: not a manager of image references imagebot updates; rule skipped", where, list)
		return false
	case !slices.ContainsFunc(mg, func(m string) bool { return slices.Contains(imageManagers, m) }):
		c.note(at, "%s: matchManagers %s: imagebot cannot tell the images a regex manager finds from the others, and does not widen the rule to every image; rule skipped", where, list)
		return false
	case c.dockerRegex && !slices.ContainsFunc(mg, func(m string) bool { return slices.Contains(regexManagers, m) }):
		c.note(at, "%s: matchManagers %s: converted for every image imagebot finds, which includes the images the config's docker regex managers find", where, list)
	}
	return true
}

// paths turns matchFileNames and matchPaths into globs over the file that
// holds a reference: Renovate's are minimatch globs or exact paths, and an
// old matchPaths entry without a glob is a directory as well.
func (c *renovate) paths(where string, r *jnode) ([]string, bool) {
	var out []string
	for _, key := range []string{"matchFileNames", "matchPaths"} {
		n := r.get(key)
		if n == nil {
			continue
		}
		list, ok := n.list()
		if !ok {
			c.note(n, "%s: %s: want a list of strings; rule not converted", where, key)
			return nil, false
		}
		for _, p := range list {
			g := strings.TrimPrefix(strings.TrimPrefix(p, "./"), "/")
			if strings.HasPrefix(g, "!") || !doublestar.ValidatePattern(g) || g == "" {
				c.note(n, "%s: %s %q is not a glob imagebot reads; rule not converted", where, key, p)
				return nil, false
			}
			out = append(out, g)
			if key == "matchPaths" && !strings.ContainsAny(g, "*?[{") {
				out = append(out, strings.TrimSuffix(g, "/")+"/**")
			}
		}
	}
	return out, true
}

// names turns the rule's name matchers into globs over normalized names.
func (c *renovate) names(r *jnode) (globs []string, ok bool) {
	defer func() { globs = unique(globs) }()
	for _, key := range []string{"matchPackageNames", "matchDepNames"} {
		n := r.get(key)
		list, _ := n.list()
		for _, name := range list {
			gs, ok := c.nameMatcher(n, key, name)
			if !ok {
				return nil, false
			}
			globs = append(globs, gs...)
			if !strings.ContainsAny(name, "/*?[{") && forCharts(r) {
				globs = append(globs, c.chartGlobs(name)...)
			}
		}
	}
	prefixes, _ := r.get("matchPackagePrefixes").list()
	for _, p := range prefixes {
		if g, ok := c.glob(r.get("matchPackagePrefixes"), p+"**"); ok {
			globs = append(globs, g)
		}
	}
	patterns, _ := r.get("matchPackagePatterns").list()
	for _, p := range patterns {
		gs, ok := c.nameMatcher(r.get("matchPackagePatterns"), "matchPackagePatterns", "/"+p+"/")
		if !ok {
			return nil, false
		}
		globs = append(globs, gs...)
	}
	return globs, true
}

// unique drops repeats, keeping the first of each: postgres and
// library/postgres are one image.
func unique(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// literalPrefix reads a regexp that only says "starts with": ^ghcr\.io/acme/.
var literalPrefix = regexp.MustCompile(`^\^((?:[A-Za-z0-9_/:@-]|\\[./-])+)(?:\.\*)?$`)

// regexPrefixGlob converts `/^ghcr\.io\/acme\//` into `ghcr.io/acme/**`.
func regexPrefixGlob(re string) (string, error) {
	body := strings.TrimSuffix(strings.TrimPrefix(re, "/"), "/")
	body = strings.ReplaceAll(body, `\/`, "/")
	m := literalPrefix.FindStringSubmatch(body)
	if m == nil {
		return "", fmt.Errorf("only a regexp for a name prefix (/^ghcr\\.io\\/acme\\//) converts to a glob")
	}
	p := strings.NewReplacer(`\.`, ".", `\-`, "-", `\/`, "/").Replace(m[1])
	if strings.HasSuffix(p, "/") {
		return p + "**", nil
	}
	return p + "*", nil
}

// glob normalizes a Renovate package name or glob as Docker does
// (nginx -> docker.io/library/nginx, bitnami/** -> docker.io/bitnami/**).
// A negation (!name) cannot be expressed.
func (c *renovate) glob(at *jnode, name string) (string, bool) {
	if strings.HasPrefix(name, "!") {
		c.note(at, "%q: imagebot policies cannot exclude names; rule not converted", name)
		return "", false
	}
	if !strings.ContainsAny(name, "*?[{") {
		n, err := imagename.Normalize(name)
		if err != nil {
			c.note(at, "%q is not an image name: %v; rule not converted", name, err)
			return "", false
		}
		return n, true
	}
	g := wildGlob(strings.ToLower(name)) // Renovate matches globs without regard to case
	if err := config.CheckMatch(g); err != nil {
		c.note(at, "%q: %v; rule not converted", name, err)
		return "", false
	}
	return g, true
}

// wildGlob normalizes the registry part of a Renovate glob as Docker
// does: bitnami/** -> docker.io/bitnami/**.
func wildGlob(name string) string {
	first, rest, more := strings.Cut(name, "/")
	switch {
	case first == "**" || first == "*":
		return name // any registry: already over normalized names
	case !more:
		return "docker.io/library/" + name
	case strings.ContainsAny(first, ".:") || first == "localhost":
		if first == "index.docker.io" {
			first = "docker.io"
		}
		return first + "/" + rest
	}
	return "docker.io/" + name
}

// convertRule writes one policy per glob with the rule's settings, scoped
// to paths when it has any.
func (c *renovate) convertRule(where string, r *jnode, globs, paths, types []string) {
	e := ruleEntry{entry: entry{comment: []string{"From " + where + "."}, why: map[string]string{}}}
	if types != nil {
		if !c.typed(where, r, globs, paths, types, &e) {
			return
		}
	} else if !c.actions(where, r, globs, &e) {
		return
	}
	if r.get("dependencyDashboardApproval").isTrue() {
		e.p.Approval = []string{config.ApprovalAll}
	}
	e.p.Paths = paths
	if g := r.get("groupName"); g != nil && g.kind == '"' {
		c.group(where, g, globs, paths)
	}
	if isEmpty(e.p) {
		if r.get("groupName") == nil && len(c.ns) == c.rulesNotes {
			c.note(r, "%s: nothing to write: what it sets is imagebot's default", where)
		}
		return // only a group, or nothing that converts
	}
	for i, g := range globs {
		if e.clearLabels || e.clearReviewers {
			// Renovate's rule labels replace the global ones; imagebot's
			// add, so an entry clears them first.
			cl := config.Policy{Match: g, Paths: e.p.Paths, UpdateTypes: e.p.UpdateTypes}
			if e.clearLabels {
				cl.Labels = []string{}
			}
			if e.clearReviewers {
				cl.Reviewers = []string{}
			}
			c.d.add(entry{comment: []string{"Renovate's rule labels and reviewers replace the global ones."}, p: cl})
		}
		p := e.p
		p.Match = g
		out := entry{why: e.why, p: p}
		if i == 0 {
			out.comment = e.comment
		}
		c.d.add(out)
	}
}

// isEmpty reports a policy that says nothing but its match.
func isEmpty(p config.Policy) bool {
	return p.Skip == nil && p.Allow == nil && p.Ignore == nil && p.Pattern == nil && p.Versioning == nil &&
		p.Range == nil && p.Pin == nil && p.Labels == nil && p.Reviewers == nil && p.Automerge == nil && p.MinAge == nil &&
		p.Approval == nil
}

// chartManagers are Renovate's managers that find the Helm charts
// imagebot updates.
var chartManagers = []string{"flux", "argocd", "helmv3", "helmfile", "kustomize"}

// forCharts reports whether a rule may be about Helm charts: it names no
// datasource or helm among them, and no manager or one that finds charts.
func forCharts(r *jnode) bool {
	if ds, ok := r.get("matchDatasources").list(); ok && !slices.Contains(ds, "helm") {
		return false
	}
	mg, ok := r.get("matchManagers").list()
	return !ok || slices.ContainsFunc(mg, func(m string) bool { return slices.Contains(chartManagers, m) })
}
