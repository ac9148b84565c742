package adopt

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/scan"
)

// everything are the spellings of "every package" in Renovate's name
// matchers: `*` (which Renovate special-cases, where imagebot's `*` stays
// within one segment of a name), regexps that match any text, and
// matchPackagePatterns' "*", which Renovate reads as ".*".
var everything = []string{"*", "**", "/.*/", "/.+/", "/^.*$/", "/^.+$/", "/^.*/", "/.*$/", "/*/"}

// nameMatcher converts one entry of matchPackageNames (or matchDepNames,
// or a matchPackagePatterns regexp written /like this/) into globs over
// normalized names. A regexp converts when its globs match exactly what it
// does: "every name", a prefix (/^ghcr\.io\/acme\//), a text the name
// contains (/kube-prometheus-stack/) or ends with (/-operator$/).
// Anything else is an error, and the rule is skipped: never widened.
func (c *renovate) nameMatcher(at *jnode, key, name string) ([]string, bool) {
	if slices.Contains(everything, name) {
		return []string{"**"}, true
	}
	if !strings.HasPrefix(name, "/") {
		g, ok := c.glob(at, name)
		return []string{g}, ok
	}
	if g, err := regexPrefixGlob(name); err == nil {
		g, ok := c.glob(at, g)
		return []string{g}, ok
	}
	globs, err := c.containsGlobs(name)
	if err != nil {
		c.note(at, "%s %q: %v; rule not converted", key, name, err)
		return nil, false
	}
	return globs, true
}

// containsGlobs converts /TEXT/ and /TEXT$/ (flag i allowed: names are
// lower case). Renovate tests the name as written (and a chart's name
// alone); imagebot's globs see the normalized name (docker.io/library/
// added, a chart's repository URL in front), so the conversion is checked
// against every reference of the repository: a glob that would take one
// the regexp does not is refused.
func (c *renovate) containsGlobs(re string) ([]string, error) {
	body := jsRegexBody(re)
	fold := strings.HasPrefix(body, "(?i)")
	body = strings.TrimPrefix(body, "(?i)")
	anchored := strings.HasSuffix(body, "$") && !strings.HasSuffix(body, `\$`)
	lit, err := literalOf(strings.TrimSuffix(body, "$"))
	if err != nil {
		return nil, err
	}
	if fold {
		lit = strings.ToLower(lit)
	}
	if strings.Contains("docker.io/library/", lit) || strings.Contains(lit, "docker.io") || strings.Contains(lit, "library/") {
		return nil, fmt.Errorf("it may match the docker.io/library/ that imagebot's normalized names add, so a glob would take more images than Renovate did")
	}
	globs := []string{"{**/*" + lit + "*,**/*" + lit + "*/**}"}
	if anchored {
		globs = []string{"**/*" + lit}
	}
	if err := config.CheckMatch(globs[0]); err != nil {
		return nil, err
	}
	// The regexp as Renovate tests it, in Go's syntax (the same for text).
	rx, err := regexp.Compile(jsRegexBody(re))
	if err != nil {
		return nil, err
	}
	for _, r := range c.all {
		if fits(globs, r.Image) && !rx.MatchString(renovateName(r)) {
			return nil, fmt.Errorf("the glob %s would also take %s (%s:%d), which Renovate's regexp does not match", globs[0], r.Image, r.File, r.Line)
		}
	}
	return globs, nil
}

// literalOf reads a regexp that is only text as names have it: letters,
// digits, `_`, `-`, `/` and escaped dots (an unescaped `.` is any
// character, which no glob of imagebot's says within a name).
func literalOf(body string) (string, error) {
	re, err := syntax.Parse(body, syntax.Perl)
	if err == nil && re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 {
		lit := string(re.Rune)
		if lit != "" && strings.Trim(lit, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/") == "" {
			return lit, nil
		}
	}
	return "", fmt.Errorf("only a regexp for every name (/.*/), a name prefix (/^ghcr\\.io\\/acme\\//), or a text the name contains (/kube-prometheus-stack/) or ends with (/-operator$/) converts to a glob")
}

// renovateName is the name Renovate matches a reference by: a chart's
// name alone, or an image's as written.
func renovateName(r scan.Ref) string {
	if r.Chart != nil {
		return r.Chart.Name
	}
	return r.Name
}

// fits reports whether name fits one of globs.
func fits(globs []string, name string) bool {
	return slices.ContainsFunc(globs, func(g string) bool { ok, _ := doublestar.Match(g, name); return ok })
}

// chartGlobs are the charts of the repository a plain name in a rule
// stands for: Renovate matches a chart by its name alone (the rule
// `matchPackageNames: [kube-prometheus-stack]` is about the chart), which
// imagebot writes with its repository.
func (c *renovate) chartGlobs(name string) []string {
	var out []string
	for _, r := range c.all {
		if g := globQuote(r.Image); r.Chart != nil && r.Chart.Name == name && r.Image != "" && !slices.Contains(out, g) {
			out = append(out, g) // a repository URL may hold glob syntax
		}
	}
	return out
}
