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
func wholeTag(re string) (string, error) {
	n, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", err
	}
	unname(n, nil)
	return `^(?P<version>.*?(?:` + n.String() + `).*)$`, nil
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
	ref := m[1] + m[2]
	n, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", err
	}
	num, numErr := strconv.Atoi(ref)
	var target *syntax.Regexp
	walk(n, func(r *syntax.Regexp) {
		if r.Op == syntax.OpCapture && target == nil && ((numErr == nil && r.Cap == num) || (numErr != nil && r.Name == ref)) {
			target = r
		}
	})
	if target == nil {
		return "", fmt.Errorf("extract %q names no group of pattern %q", extract, pattern)
	}
	unname(n, target)
	target.Name = "version"
	return n.String(), nil
}

// unname makes every capture but keep anonymous, so that no other group is
// called `version`.
func unname(n, keep *syntax.Regexp) {
	walk(n, func(r *syntax.Regexp) {
		if r.Op == syntax.OpCapture && r != keep {
			r.Name = ""
		}
	})
}

func walk(n *syntax.Regexp, f func(*syntax.Regexp)) {
	f(n)
	for _, s := range n.Sub {
		walk(s, f)
	}
}

// renovateGroups are the capture groups of Renovate's regex versioning.
var renovateGroups = map[string]bool{
	"major": true, "minor": true, "patch": true, "build": true, "revision": true,
	"prerelease": true, "compatibility": true,
}

// versionSpan turns Renovate's `regex:` versioning into a pattern: the
// `version` group spans the top-level parts that hold Renovate's groups
// (major through compatibility), and is compared by imagebot's default rule,
// which orders the numbers and keeps the words between them, the
// compatibility suffix included, unchanged, as Renovate does.
func versionSpan(re string) (string, error) {
	n, err := syntax.Parse(re, syntax.Perl)
	if err != nil {
		return "", err
	}
	has := func(r *syntax.Regexp) bool {
		found := false
		walk(r, func(x *syntax.Regexp) { found = found || (x.Op == syntax.OpCapture && renovateGroups[x.Name]) })
		return found
	}
	if !has(n) {
		return "", fmt.Errorf("no major, minor or patch group")
	}
	if n.Op != syntax.OpConcat {
		unname(n, nil)
		return `(?P<version>` + n.String() + `)`, nil
	}
	lo, hi := -1, -1
	for i, s := range n.Sub {
		if has(s) {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	unname(n, nil)
	span := &syntax.Regexp{Op: syntax.OpConcat, Sub: n.Sub[lo : hi+1]}
	group := &syntax.Regexp{Op: syntax.OpCapture, Name: "version", Cap: 1, Sub: []*syntax.Regexp{span}}
	var out strings.Builder
	for _, s := range n.Sub[:lo] {
		out.WriteString(s.String())
	}
	out.WriteString(group.String())
	for _, s := range n.Sub[hi+1:] {
		out.WriteString(s.String())
	}
	return out.String(), nil
}
