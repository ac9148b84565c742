package rollout

import (
	"maps"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/scan"
)

// files is what a set of files holds, file by file, as a walk goes back
// through history: it starts from the tip, and each Change puts back the
// changed files as they were before it.
type files[T any] struct {
	parse  func(file string, src []byte) T
	byFile map[string]T
}

func (f *files[T]) back(ch Change) {
	for name, src := range ch.Before {
		if src == nil {
			delete(f.byFile, name)
		} else {
			f.byFile[name] = f.parse(name, src)
		}
	}
}

// refFiles follows the image references in the files for which want is
// true, starting from the tip's refs.
func refFiles(refs []scan.Ref, want func(string) bool) *files[[]scan.Ref] {
	f := &files[[]scan.Ref]{
		parse:  func(name string, src []byte) []scan.Ref { return scan.File(name, src).Refs },
		byFile: map[string][]scan.Ref{},
	}
	for _, r := range refs {
		if want(r.File) {
			f.byFile[r.File] = append(f.byFile[r.File], r)
		}
	}
	return f
}

// chartFiles is refFiles for chart references (refs, read by
// plan.ChartRef). A HelmRelease read alone names its chart by its
// HelmRepository, whose URL is in another file: it is named as the tip's
// scan of the whole tree named it.
func chartFiles(refs []scan.Ref, want func(string) bool) *files[[]scan.Ref] {
	f := refFiles(refs, want)
	images := map[string]string{}
	for _, r := range refs {
		if r.Chart != nil && r.Chart.Source != "" {
			images[r.Chart.Source+"\x00"+r.Chart.Name] = r.Image
		}
	}
	f.parse = func(name string, src []byte) []scan.Ref {
		var out []scan.Ref
		for _, r := range scan.File(name, src).Charts {
			if r.Image == "" && r.Chart != nil {
				r.Image = images[r.Chart.Source+"\x00"+r.Chart.Name]
			}
			out = append(out, plan.ChartRef(r))
		}
		return out
	}
	return f
}

// version is one image version an environment holds: a tag, and the
// digest written beside it if any.
type version struct {
	Tag, Digest string
}

func (v version) String() string {
	if v.Digest == "" {
		return v.Tag
	}
	return v.Tag + "@" + imagename.ShortDigest(v.Digest)
}

// value is what an environment holds of one image stream at one moment:
// nothing, one version, or several (files that disagree).
type value []version

func (v value) key() string {
	var parts []string
	for _, x := range v {
		parts = append(parts, x.Tag+"@"+x.Digest)
	}
	return strings.Join(parts, " ")
}

func (v value) String() string {
	var parts []string
	for _, x := range v {
		parts = append(parts, x.String())
	}
	return strings.Join(parts, ", ")
}

// valueOf collects the versions of img in stream fam that the files hold.
func valueOf(f *files[[]scan.Ref], img, fam string) value {
	seen := map[version]bool{}
	for _, refs := range f.byFile {
		for _, r := range refs {
			if r.Image == img && r.Tag != "" && family(r.Tag) == fam {
				seen[version{r.Tag, r.Digest}] = true
			}
		}
	}
	out := slices.Collect(maps.Keys(seen))
	slices.SortFunc(out, func(a, b version) int { return strings.Compare(a.Tag+"@"+a.Digest, b.Tag+"@"+b.Digest) })
	return out
}

// family is a tag's stream: a version in one environment promotes to the
// references of the same stream in another.
func family(tag string) string { return Stream(tag) }

// Stream names the family of a tag by its non-digit parts, as branch names
// do: "alpine" for 1.26.1-alpine, "" for 1.26.1 and v1.9.0, "main" for
// main-20240612-a0b1c2d. A commit id is not part of it (it changes with
// every build), nor the "v" before a version.
func Stream(tag string) string {
	var parts []string
	for i, tok := range strings.FieldsFunc(tag, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
		if commitID(tok) {
			continue
		}
		letters := strings.FieldsFunc(tok, func(r rune) bool { return r >= '0' && r <= '9' })
		if i == 0 && len(letters) > 0 && letters[0] == "v" && len(tok) > 1 && tok[1] >= '0' && tok[1] <= '9' {
			letters = letters[1:]
		}
		parts = append(parts, letters...)
	}
	return strings.Join(parts, "-")
}

// commitID reports whether a tag token is a git commit id: seven or more
// hex digits with both digits and letters (3f9a2c1), or git describe's
// g-prefixed one (g3a4b5c6).
func commitID(tok string) bool {
	if len(tok) > 7 && tok[0] == 'g' {
		tok = tok[1:]
	}
	if len(tok) < 7 {
		return false
	}
	digit, letter := false, false
	for _, r := range tok {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'f':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}
