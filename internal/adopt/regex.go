package adopt

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// The other tools describe tags with regexps where imagebot has two narrower
// tools: `ignore` globs (path.Match) and a `pattern` whose one `version`
// group is compared. These functions translate exactly or refuse; a refusal
// becomes a note, never an approximation.

var errNotGlob = errors.New("not expressible as an ignore glob")

// regexGlobs turns a regexp that is tested unanchored against a tag (Flux's
// exclusionList, Renovate's /regex/ ignoreVersions) into path.Match globs
// that match the same tags: literals, `.` (?), `.*` (*), character classes,
// `^`/`$` anchors and a top-level `|`. Anything else is errNotGlob.
func regexGlobs(re string) ([]string, error) {
	var globs []string
	for _, branch := range topAlternatives(re) {
		g, err := regexGlob(branch)
		if err != nil {
			return nil, err
		}
		globs = append(globs, g)
	}
	return globs, nil
}

func regexGlob(re string) (string, error) {
	n, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", err
	}
	subs := []*syntax.Regexp{n}
	if n.Op == syntax.OpConcat {
		subs = n.Sub
	}
	var b strings.Builder
	if len(subs) > 0 && subs[0].Op == syntax.OpBeginText {
		subs = subs[1:]
	} else {
		b.WriteByte('*')
	}
	end := "*"
	if len(subs) > 0 && subs[len(subs)-1].Op == syntax.OpEndText {
		subs, end = subs[:len(subs)-1], ""
	}
	for _, s := range subs {
		switch {
		case s.Op == syntax.OpLiteral && s.Flags&syntax.FoldCase == 0:
			for _, r := range s.Rune {
				if strings.ContainsRune(`*?[\`, r) {
					b.WriteByte('\\')
				}
				b.WriteRune(r)
			}
		case s.Op == syntax.OpAnyCharNotNL || s.Op == syntax.OpAnyChar:
			b.WriteByte('?')
		case s.Op == syntax.OpStar && (s.Sub[0].Op == syntax.OpAnyCharNotNL || s.Sub[0].Op == syntax.OpAnyChar):
			b.WriteByte('*')
		case s.Op == syntax.OpCharClass:
			b.WriteString(globClass(s.Rune))
		case s.Op == syntax.OpEmptyMatch:
		default:
			return "", fmt.Errorf("%q: %w", re, errNotGlob)
		}
	}
	b.WriteString(end)
	g := b.String()
	if g == "**" {
		g = "*"
	}
	return strings.ReplaceAll(g, "**", "*"), nil
}

// globClass writes a class's rune ranges as a path.Match class.
func globClass(ranges []rune) string {
	var b strings.Builder
	b.WriteByte('[')
	esc := func(r rune) {
		if strings.ContainsRune(`]\-^`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		esc(ranges[i])
		if ranges[i+1] != ranges[i] {
			b.WriteByte('-')
			esc(ranges[i+1])
		}
	}
	b.WriteByte(']')
	return b.String()
}

// topAlternatives splits re at the `|` that are outside groups and classes,
// before parsing: the parser factors common prefixes out of alternations,
// which would hide the branches.
func topAlternatives(re string) []string {
	var out []string
	depth, class, start := 0, false, 0
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, re[start:i])
			start = i + 1
		}
	}
	return append(out, re[start:])
}

// wholeTag is a pattern that admits the tags re matches (unanchored, as
// Flux's filterTags and Renovate's /regex/ allowedVersions test it) and
// compares the whole tag: `^(?P<version>.*?(?:re).*)$`. Anchors inside re
// keep their meaning: `^` can only match where the lazy prefix is empty.
// The user's text is kept as written, so the pattern stays readable.
func wholeTag(re string) (string, error) {
	out := `^(?P<version>.*?(?:` + renameGroups(re, -1) + `).*)$`
	if _, err := regexp.Compile(out); err != nil {
		return "", err
	}
	return out, nil
}

var extractRE = regexp.MustCompile(`^\$(?:\{(\w+)\}|(\w+))$`)

// extractGroup turns Flux's filterTags pattern and extract template into a
// pattern whose `version` group is the one the template names. Only a
// template that is exactly one group ($ts, ${ts}, $1) can be expressed:
// imagebot compares one group, not text assembled from several.
func extractGroup(pattern, extract string) (string, error) {
	m := extractRE.FindStringSubmatch(strings.TrimSpace(extract))
	if m == nil {
		return "", fmt.Errorf("extract %q assembles text; imagebot compares one named group, so only $name or ${name} converts", extract)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", err
	}
	ref := m[1] + m[2]
	target, err := strconv.Atoi(ref)
	if err != nil {
		target = re.SubexpIndex(ref)
	}
	if target < 1 || target > re.NumSubexp() {
		return "", fmt.Errorf("extract %q names no group of pattern %q", extract, pattern)
	}
	return renameGroups(pattern, target), nil
}

// renameGroups names capture group number target (1-based, in the order
// of their opening parentheses) `version`, and renames any other group
// called `version`, so that exactly one is compared.
func renameGroups(re string, target int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch {
		case c == '\\' && i+1 < len(re):
			b.WriteString(re[i : i+2])
			i++
			continue
		case c == '[':
			j := classEnd(re, i)
			b.WriteString(re[i:j])
			i = j - 1
			continue
		case c != '(':
			b.WriteByte(c)
			continue
		}
		rest := re[i+1:]
		name, named := "", false
		for _, p := range []string{"?P<", "?<"} {
			if strings.HasPrefix(rest, p) && !strings.HasPrefix(rest, "?<=") && !strings.HasPrefix(rest, "?<!") {
				end := strings.IndexByte(rest, '>')
				if end > 0 {
					name, named = rest[len(p):end], true
					i += end + 1
				}
				break
			}
		}
		if !named && strings.HasPrefix(rest, "?") {
			b.WriteByte(c) // (?: (?i) and friends capture nothing
			continue
		}
		n++
		switch {
		case n == target:
			b.WriteString("(?P<version>")
		case named && name == "version":
			b.WriteString("(?P<version_>")
		case named:
			b.WriteString("(?P<" + name + ">")
		default:
			b.WriteByte('(')
		}
	}
	return b.String()
}

// classEnd is the index after the `]` that closes the class opening at i.
func classEnd(re string, i int) int {
	j := i + 1
	if j < len(re) && re[j] == '^' {
		j++
	}
	if j < len(re) && re[j] == ']' {
		j++
	}
	for ; j < len(re); j++ {
		switch re[j] {
		case '\\':
			j++
		case ']':
			return j + 1
		}
	}
	return len(re)
}

// renovateGroups are the capture groups of Renovate's regex versioning.
var renovateGroups = regexp.MustCompile(`\(\?P?<(major|minor|patch|build|revision|prerelease|compatibility)>`)

// versionSpan turns Renovate's `regex:` versioning into a pattern: the
// `version` group spans the top-level parts that hold Renovate's groups
// (major through compatibility), and is compared by imagebot's default rule,
// which orders the numbers and keeps the words between them, the
// compatibility suffix included, unchanged, as Renovate does.
func versionSpan(re string) (string, error) {
	if _, err := regexp.Compile(re); err != nil {
		return "", err
	}
	if !renovateGroups.MatchString(re) {
		return "", fmt.Errorf("no major, minor or patch group")
	}
	items := topItems(renameGroups(re, 0))
	lo, hi := -1, -1
	for i, it := range items {
		if it == "|" {
			lo, hi = 0, len(items)-1 // an alternation: the whole regexp
			break
		}
		if renovateGroups.MatchString(it) {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	out := strings.Join(items[:lo], "") + "(?P<version>" + strings.Join(items[lo:hi+1], "") + ")" + strings.Join(items[hi+1:], "")
	if _, err := regexp.Compile(out); err != nil {
		return "", err
	}
	return out, nil
}

// quantifier matches what may follow an item: *, +, ?, {n,m}, lazily or not.
var quantifier = regexp.MustCompile(`^(?:[*+?]|\{\d+(?:,\d*)?\})\??`)

// topItems splits re into its top-level items, each with its quantifier:
// `^(?<major>\d+)\.(?<minor>\d+)(-(?<compatibility>.*))?$` gives ^,
// (?<major>\d+), \., (?<minor>\d+), (-(?<compatibility>.*))? and $.
func topItems(re string) []string {
	var items []string
	for i := 0; i < len(re); {
		start := i
		switch re[i] {
		case '\\':
			i += 2
		case '[':
			i = classEnd(re, i)
		case '(':
			depth := 0
			for ; i < len(re); i++ {
				if re[i] == '\\' {
					i++
					continue
				}
				if re[i] == '[' {
					i = classEnd(re, i) - 1
					continue
				}
				if re[i] == '(' {
					depth++
				} else if re[i] == ')' {
					depth--
					if depth == 0 {
						i++
						break
					}
				}
			}
		default:
			i++
		}
		i = min(i, len(re))
		i += len(quantifier.FindString(re[i:]))
		items = append(items, re[start:i])
	}
	return items
}
