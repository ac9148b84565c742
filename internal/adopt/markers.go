package adopt

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/rewrite"
	"github.com/imagebot/imagebot/internal/safefs"
	"github.com/imagebot/imagebot/internal/scan"
)

// Marker is a line whose value Flux updates through a `$imagepolicy`
// marker and that imagebot does not find by itself (an env value, an
// argument, a chart's appVersion): it needs an imagebot marker too.
type Marker struct {
	File   string
	Line   int
	Setter string // Flux's setter, "flux-system:worker:tag"
	// Want is the imagebot marker the line needs: "imagebot: tag ghcr.io/acme/worker".
	Want string
	span scan.Span // the bytes of Flux's `{"$imagepolicy": ...}`
}

// String says what to do, for the report.
func (m Marker) String() string {
	return fmt.Sprintf("%s:%d: Flux marker %q: imagebot finds this value only with `# %s` (run init with --rewrite-markers to add it to the Flux marker)", m.File, m.Line, m.Setter, m.Want)
}

// fluxMarkerRE finds Flux's setter comment; the setter is ns:name[:field].
var fluxMarkerRE = regexp.MustCompile(`#\s*(\{\s*"\$imagepolicy"\s*:\s*"([^"\\]*)"\s*\})`)

// fluxMark is one `$imagepolicy` marker as read, before the ImagePolicies
// it may name are all known.
type fluxMark struct {
	file    string
	line    int
	setter  string
	span    scan.Span
	covered bool // the line holds a value imagebot reads anyway
}

// readMarks finds the `$imagepolicy` markers of one file; refs are the
// references the scan found in it.
func readMarks(file string, src []byte, refs []scan.Ref) []fluxMark {
	ls := newLines(src)
	covered := coveredLines(ls, refs)
	var out []fluxMark
	for _, m := range fluxMarkerRE.FindAllSubmatchIndex(src, -1) {
		line := ls.of(m[0])
		out = append(out, fluxMark{file: file, line: line, setter: string(src[m[4]:m[5]]), span: scan.Span{Start: m[2], End: m[3]}, covered: covered[line]})
	}
	return out
}

// fluxMarkers resolves every `$imagepolicy` marker. Those on lines imagebot
// already reads (image:, kustomize newTag, Helm tag) need nothing; the
// others become Markers, or notes when imagebot cannot take them over.
func fluxMarkers(marks []fluxMark, pols []*fluxPolicy, ns *notes) []Marker {
	var out []Marker
	for _, mk := range marks {
		file, line, setter := mk.file, mk.line, mk.setter
		parts := strings.Split(setter, ":")
		if len(parts) < 2 || len(parts) > 3 {
			ns.add(file, line, "Flux marker %q: want namespace:name[:tag|:name|:digest]", setter)
			continue
		}
		field := ""
		if len(parts) == 3 {
			field = parts[2]
		}
		p := policyNamed(pols, parts[0], parts[1])
		if p == nil {
			ns.add(file, line, "Flux marker %q names an ImagePolicy that is not in the repository; not converted", setter)
			continue
		}
		p.markers++
		if !slices.Contains(p.files, file) {
			p.files = append(p.files, file)
		}
		if mk.covered || field == "name" {
			// imagebot reads this value itself, or it is a name,
			// which imagebot never changes.
			continue
		}
		if p.repo == nil {
			continue // already noted: the image is unknown
		}
		m := Marker{File: file, Line: line, Setter: setter, span: mk.span}
		switch field {
		case "":
			m.Want = "imagebot: image"
		case "tag":
			m.Want = "imagebot: tag " + p.repo.image
		default:
			ns.add(file, line, "Flux marker %q: imagebot writes a digest only into image:, a Helm digest: or a kustomize digest:, not into a separate value; not converted", setter)
			continue
		}
		out = append(out, m)
	}
	return out
}

func policyNamed(pols []*fluxPolicy, ns, name string) *fluxPolicy {
	for _, p := range pols {
		if p.name == name && (p.ns == ns || p.ns == "") {
			return p
		}
	}
	return nil
}

// coveredLines are the lines of src that hold a value of a reference
// imagebot found: the reference itself and its tag and digest.
func coveredLines(ls lines, refs []scan.Ref) map[int]bool {
	out := map[int]bool{}
	for _, r := range refs {
		out[r.Line] = true
		if r.TagField.OK {
			out[ls.of(r.TagField.Span.Start)] = true
		}
		if r.DigestField.OK && r.DigestField.Span.Len() > 0 {
			out[ls.of(r.DigestField.Span.Start)] = true
		}
	}
	return out
}

// RewriteMarkers adds each marker's imagebot marker to its Flux marker, in
// the files below root, by splicing bytes: nothing else in the file
// changes. Flux parses the whole line comment as JSON, so a second comment
// after it would silence Flux; the imagebot marker goes into the JSON as one
// more key, which Flux ignores and imagebot finds:
//
//	value: "build-9" # {"$imagepolicy": "flux-system:worker:tag", "imagebot": " imagebot: tag ghcr.io/acme/worker "}
//
// Each file is scanned again before it is written, and is written only when
// imagebot now finds every marked value in it. It returns the files changed.
func RewriteMarkers(root string, ms []Marker) ([]string, error) {
	byFile := map[string][]Marker{}
	var files []string
	for _, m := range ms {
		if byFile[m.File] == nil {
			files = append(files, m.File)
		}
		byFile[m.File] = append(byFile[m.File], m)
	}
	slices.Sort(files)
	var changed []string
	for _, f := range files {
		if err := rewriteFile(root, f, byFile[f]); err != nil {
			return changed, err
		}
		changed = append(changed, f)
	}
	return changed, nil
}

func rewriteFile(root, file string, ms []Marker) error {
	st, err := safefs.Lstat(root, file)
	if err != nil {
		return fmt.Errorf("rewrite markers: %w", err)
	}
	src, err := safefs.ReadFile(root, file, maxFile)
	if err != nil {
		return fmt.Errorf("rewrite markers: %w", err)
	}
	var edits []rewrite.Edit
	for _, m := range ms {
		text, err := extendedMarker(m)
		if err != nil {
			return err
		}
		if !fluxMarkerRE.Match([]byte("#" + string(src[m.span.Start:m.span.End]))) {
			return fmt.Errorf("%s:%d: %w: the Flux marker moved since init read it; run init again", file, m.Line, rewrite.ErrStale)
		}
		edits = append(edits, rewrite.Edit{Span: m.span, Text: text})
	}
	out, err := rewrite.Apply(src, edits)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	res := scan.File(file, out)
	for _, m := range ms {
		if !slices.ContainsFunc(res.Refs, func(r scan.Ref) bool { return r.Line == m.Line }) {
			msg := "imagebot does not find the value"
			for _, p := range res.Problems {
				if p.Line == m.Line {
					msg = p.Err.Error()
				}
			}
			return fmt.Errorf("%s:%d: left untouched: with the marker added, %s", file, m.Line, msg)
		}
	}
	return safefs.WriteFile(root, file, out, st.Mode().Perm())
}

// extendedMarker is Flux's marker with the imagebot marker as one more key.
// The spaces around the value let imagebot's marker start at a word.
func extendedMarker(m Marker) (string, error) {
	setter, err := json.Marshal(m.Setter)
	if err != nil {
		return "", err
	}
	want, err := json.Marshal(" " + m.Want + " ")
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`{"$imagepolicy": %s, "imagebot": %s}`, setter, want), nil
}
