package scan

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// KindDockerfile is an image in a Dockerfile: a FROM, an ARG default used
// by a FROM, a COPY --from.
const KindDockerfile Kind = "dockerfile"

// isDockerfile reports whether file is a Dockerfile by its name:
// Dockerfile, Containerfile, *.Dockerfile, Dockerfile.* (but not
// Dockerfile.dockerignore, which is a list of paths).
func isDockerfile(file string) bool {
	base := path.Base(file)
	if strings.HasSuffix(base, ".dockerignore") {
		return false
	}
	for _, n := range []string{"Dockerfile", "Containerfile"} {
		if base == n || strings.HasSuffix(base, "."+n) || strings.HasPrefix(base, n+".") {
			return true
		}
	}
	return false
}

// token is a word of a Dockerfile instruction and where it stands in the
// file. broken is true when a line continuation runs through it: its
// bytes are not one span, so it is never edited.
type token struct {
	text       string
	start, end int
	broken     bool
}

// dockerfile is one Dockerfile being read.
type dockerfile struct {
	w      *walker
	src    []byte
	escape byte
	stages map[string]bool   // build stage names seen so far, lower case
	args   map[string]argDef // ARGs declared before the first FROM
	used   map[string]bool   // ARGs already taken as references
	froms  int
}

type argDef struct {
	value token // the default, inside any quotes; text "" when none
	has   bool  // a default was written (ARG X=)
}

// scanDockerfile finds the images of a Dockerfile: `FROM [--flag...]
// image [AS name]`, `COPY --from=image`, and the default of an ARG
// declared before the first FROM when a FROM is `${NAME}` (the ARG holds
// the reference) or `name:${NAME}` (the ARG holds its tag). A FROM that
// names an earlier stage, or an ARG without a default, is a variable
// notice. Line continuations are followed; a heredoc's body is passed
// over, never read as instructions; a word a continuation runs through is
// a problem, never an edit. Time is linear in the file's size.
func scanDockerfile(file string, src []byte) fileResult {
	var res fileResult
	res.Files = 1
	d := &dockerfile{
		w:      &walker{file: file, lines: newLines(src), seen: map[*kyaml.Node]bool{}},
		src:    src,
		escape: directiveEscape(src),
		stages: map[string]bool{}, args: map[string]argDef{}, used: map[string]bool{},
	}
	ls := d.w.lines
	for n := 1; n <= len(ls.starts); {
		toks, next := d.instruction(n)
		var heredocs []string
		if len(toks) > 0 {
			heredocs = d.do(toks)
		}
		n = next
		// A heredoc's body runs to its delimiter on a line of its own.
		for _, h := range heredocs {
			word, dash := strings.TrimPrefix(h, "-"), strings.HasPrefix(h, "-")
			for ; n <= len(ls.starts); n++ {
				line := string(src[ls.starts[n-1]:ls.end(n)])
				if dash {
					line = strings.TrimLeft(line, "\t")
				}
				if line == word {
					n++
					break
				}
			}
		}
	}
	res.Refs, res.Skipped, res.Problems = d.w.refs, d.w.skipped, d.w.problems
	return res
}

// escapeRE is the parser directive that changes the escape character,
// which Windows Dockerfiles set to a backtick.
var escapeRE = regexp.MustCompile("(?i)^#\\s*escape\\s*=\\s*([\\\\`])\\s*$")

func directiveEscape(src []byte) byte {
	ls := newLines(src)
	for n := 1; n <= len(ls.starts); n++ {
		line := strings.TrimSpace(string(src[ls.starts[n-1]:ls.end(n)]))
		if !strings.HasPrefix(line, "#") {
			break // directives come first, before any blank line or instruction
		}
		if m := escapeRE.FindStringSubmatch(line); m != nil {
			return m[1][0]
		}
	}
	return '\\'
}

// instruction reads the instruction that starts on line n (1-based),
// following continuations, and returns its words and the line after it.
// Blank and comment lines yield no words.
func (d *dockerfile) instruction(n int) ([]token, int) {
	ls := d.w.lines
	var toks []token
	joinNext := false // the last word touched the continuation
	for first := true; n <= len(ls.starts); first = false {
		start, end := ls.starts[n-1], ls.end(n)
		n++
		line := d.src[start:end]
		trimmed := strings.TrimSpace(string(line))
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			if first {
				return nil, n
			}
			continue // blank and comment lines inside a continuation are skipped
		}
		content := strings.TrimRight(string(line), " \t")
		cont := len(content) > 0 && content[len(content)-1] == d.escape
		if cont {
			content = content[:len(content)-1]
		}
		for i := 0; i < len(content); {
			if content[i] == ' ' || content[i] == '\t' {
				i++
				continue
			}
			j := i
			for j < len(content) && content[j] != ' ' && content[j] != '\t' {
				j++
			}
			t := token{text: content[i:j], start: start + i, end: start + j}
			if i == 0 && joinNext && len(toks) > 0 {
				prev := &toks[len(toks)-1]
				prev.text += t.text
				prev.end, prev.broken = t.end, true
			} else {
				toks = append(toks, t)
			}
			i = j
		}
		joinNext = cont && len(content) > 0 && content[len(content)-1] != ' ' && content[len(content)-1] != '\t'
		if !cont {
			break
		}
	}
	return toks, n
}

// do handles one instruction and returns the delimiters of the heredocs
// it opens ("-EOF" for <<-EOF).
func (d *dockerfile) do(toks []token) []string {
	switch strings.ToUpper(toks[0].text) {
	case "ARG":
		if d.froms == 0 {
			d.arg(toks[1:])
		}
	case "FROM":
		d.from(toks[1:])
	case "COPY":
		for _, t := range toks[1:] {
			if v, ok := strings.CutPrefix(t.text, "--from="); ok {
				d.copyFrom(t, v)
			}
		}
	}
	var heredocs []string
	switch strings.ToUpper(toks[0].text) {
	case "RUN", "COPY", "ADD":
	default:
		return nil
	}
	for _, t := range toks[1:] {
		if m := heredocRE.FindStringSubmatch(t.text); m != nil {
			heredocs = append(heredocs, m[1]+m[3])
		}
	}
	return heredocs
}

// heredocRE is a heredoc opener: <<EOF, <<-EOF, <<"EOF", <<'EOF',
// possibly after a command's words (cat <<EOF).
// A shell's here-string (<<<) is none.
var heredocRE = regexp.MustCompile(`(?:^|[^<])<<(-?)(["']?)([A-Za-z_][A-Za-z0-9_]*)["']?`)

// arg records ARG NAME[=default]..., the default inside its quotes.
func (d *dockerfile) arg(toks []token) {
	for _, t := range toks {
		name, v, has := strings.Cut(t.text, "=")
		def := argDef{has: has}
		if has {
			off := t.start + len(name) + 1
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v, off = v[1:len(v)-1], off+1
			}
			def.value = token{text: v, start: off, end: off + len(v), broken: t.broken}
		}
		d.args[name] = def
	}
}

var (
	wholeVarRE = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)
	tagVarRE   = regexp.MustCompile(`^([^:@$]+):\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$`)
)

// from handles FROM [--platform=...] image [AS name].
func (d *dockerfile) from(toks []token) {
	d.froms++
	for len(toks) > 0 && strings.HasPrefix(toks[0].text, "--") {
		toks = toks[1:]
	}
	if len(toks) == 0 {
		return
	}
	img := toks[0]
	defer func() {
		if len(toks) >= 3 && strings.EqualFold(toks[1].text, "AS") {
			d.stages[strings.ToLower(toks[2].text)] = true
		}
	}()
	switch {
	case strings.EqualFold(img.text, "scratch"):
	case d.stages[strings.ToLower(img.text)]:
		d.skipAt(img, img.text, SkipVariable, fmt.Sprintf("names the build stage %s, built above: not an image to update", quote(img.text)))
	default:
		d.image(img)
	}
}

// copyFrom handles COPY --from=X: a stage (by name or index) is no image.
func (d *dockerfile) copyFrom(t token, v string) {
	if d.stages[strings.ToLower(v)] || v == "" || strings.Trim(v, "0123456789") == "" {
		return
	}
	off := len("--from=")
	d.image(token{text: v, start: t.start + off, end: t.end, broken: t.broken})
}

// image takes a word that names an image, or an ARG that holds it.
func (d *dockerfile) image(t token) {
	if m := wholeVarRE.FindStringSubmatch(t.text); m != nil {
		d.argImage(t, m[1])
		return
	}
	if m := tagVarRE.FindStringSubmatch(t.text); m != nil {
		d.argTag(t, m[1], m[2])
		return
	}
	d.ref(t, t.text)
}

// ref records the reference spelt by t.
func (d *dockerfile) ref(t token, value string) {
	p, err := parseRef(value)
	if err != nil {
		d.w.skip(d.at(t.start), KindDockerfile, value, err.Error())
		return
	}
	if t.broken {
		d.problemAt(t.start, "%s runs over a line continuation: its bytes are not one place; left untouched", quote(value))
		return
	}
	r := Ref{Location: d.at(t.start), Kind: KindDockerfile, Name: p.name, Repo: p.repo, Tag: p.tag, Digest: p.digest}
	r.TagField, r.DigestField = stringFields(Span{t.start, t.end}, p)
	d.w.add(r)
}

// argImage: FROM ${NAME}, the ARG's default holds the reference.
func (d *dockerfile) argImage(at token, name string) {
	a, ok := d.args[name]
	switch {
	case !ok || !a.has || a.value.text == "":
		d.skipAt(at, at.text, SkipVariable, fmt.Sprintf("ARG %s has no default before the first FROM: the image is given at build time", name))
	case d.used[name]:
	default:
		d.used[name] = true
		d.ref(a.value, a.value.text)
	}
}

// argTag: FROM image:${NAME}, the ARG's default holds the tag.
func (d *dockerfile) argTag(at token, image, name string) {
	a, ok := d.args[name]
	if !ok || !a.has || a.value.text == "" {
		d.skipAt(at, at.text, SkipVariable, fmt.Sprintf("ARG %s has no default before the first FROM: the tag is given at build time", name))
		return
	}
	if d.used[name] {
		return
	}
	d.used[name] = true
	repo, err := parseName(image)
	if err != nil {
		d.w.skip(d.at(at.start), KindDockerfile, at.text, err.Error())
		return
	}
	t := a.value
	if err := checkTag(t.text); err != nil {
		d.w.skip(d.at(t.start), KindDockerfile, image+":"+t.text, err.Error())
		return
	}
	if t.broken {
		d.problemAt(t.start, "ARG %s runs over a line continuation; left untouched", name)
		return
	}
	d.w.add(Ref{
		Location: d.at(t.start), Kind: KindDockerfile, Name: image, Repo: repo, Tag: t.text,
		TagField: Field{Span: Span{t.start, t.end}, OK: true},
	})
}

func (d *dockerfile) skipAt(t token, value, reason, detail string) {
	d.w.skipped = append(d.w.skipped, Skipped{Location: d.at(t.start), Kind: KindDockerfile, Value: clip(value), Reason: reason, Detail: detail})
}

func (d *dockerfile) problemAt(off int, format string, args ...any) {
	d.w.problems = append(d.w.problems, Problem{Location: d.at(off), Err: fmt.Errorf(format, args...)})
}

// at is the line and rune column of a byte offset.
func (d *dockerfile) at(off int) Location {
	starts := d.w.lines.starts
	n := sort.SearchInts(starts, off+1) // the first line starting after off
	return Location{File: d.w.file, Line: n, Col: utf8.RuneCount(d.src[starts[n-1]:off]) + 1}
}
