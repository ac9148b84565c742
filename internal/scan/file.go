package scan

import (
	"bytes"
	"errors"
	"io"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// ErrTemplate marks a file skipped because it is a template: its YAML is
// only known after rendering, so its bytes are not ours to edit.
var ErrTemplate = errors.New("template ({{ ... }}), skipped")

// ErrSyntax marks a file that is not valid YAML. It is left untouched.
var ErrSyntax = errors.New("not valid YAML, left untouched")

// File finds the image references in one file's bytes. file is the name
// used in locations (slash-separated, relative to the repository root).
//
// A file that is not UTF-8 (ErrEncoding), is a template (ErrTemplate) or
// does not parse (ErrSyntax, at the line to fix) yields one Problem and no
// references. Time is linear in the size of src; File does not cap the
// size, FS does.
func File(file string, src []byte) Result {
	res := scanFile(file, src).Result
	scrubResult(&res)
	return res
}

func scanFile(file string, src []byte) fileResult {
	var res fileResult
	res.Files = 1
	if p := encoding(file, src); p != nil {
		res.Problems = []Problem{*p}
		return res
	}
	if isDockerfile(file) {
		return scanDockerfile(file, src)
	}
	// Cheap screen first: most files in a big repository hold no image.
	// "imagebot" (the marker) and "images" contain "image" too.
	// A kustomization is read whatever it holds: what it builds from
	// decides which names its overlays rename (kustomizegraph.go).
	kust, chart := isKustomization(file), isChartFile(file)
	ci := isWorkflow(file) || isGitLabCI(file) || isCloudBuild(file) // container: node:20 holds no "image"
	if !kust && !chart && !ci && !mayHold(src) {
		return res
	}
	// A Helm or Go template is only YAML after rendering, but its lines
	// without template syntax are YAML already (template.go): they are
	// read with the syntax left out, byte for byte, so that the spans
	// found are the file's. A values file that merely holds
	// "{{ .Release.Name }}" in a string is plain YAML, and read as it is.
	body := src
	template := bytes.Contains(src, []byte("{{")) && inTemplates(file) || isTemplateFile(file)
	var docs []*kyaml.Node
	if !template {
		var read int
		var err error
		docs, read, err = parse(src)
		if err != nil && !bytes.Contains(src, []byte("{{")) {
			res.Problems = []Problem{syntaxError(file, src, err, read)}
			return res
		}
		template = err != nil
	}
	if template {
		body = detemplate(src)
		docs, res.Problems = parseTemplate(file, body)
	}
	if kust {
		res.kust = readKustomization(file, docs)
	}
	w := &walker{file: file, lines: newLines(body), seen: map[*kyaml.Node]bool{}, problems: res.Problems, template: template}
	for _, d := range docs {
		// The objects that hold chart versions come first: they take the
		// nodes they read (a kustomize.images string), which the walk
		// then passes over.
		top := d
		if d.Kind == kyaml.DocumentNode && len(d.Content) > 0 {
			top = d.Content[0]
		}
		w.object(top)
		switch {
		case chart:
			w.chartList(top, "dependencies", KindChartDependency, "repository", "no version: helm dependency update takes the newest")
		case kust:
			w.chartList(top, "helmCharts", KindHelmCharts, "repo", "no version: kustomize pulls the newest")
			w.kustomizeRemotes(top) // gitremote.go
		case isWorkflow(file):
			w.workflow(top)
		case isGitLabCI(file):
			w.gitlab(top)
		case isCloudBuild(file):
			w.cloudBuild(top)
		}
		w.walk(d)
	}
	res.Refs, res.Skipped, res.Problems = w.refs, w.skipped, w.problems
	if template {
		untemplated(res.Skipped, w.lines, src)
	}
	// Alone, a file resolves the sources it holds; FS resolves the rest.
	res.Charts, _ = resolveSources(w.charts, nil, w.sources, false)
	res.sources, res.chartRefs, res.unnamed = w.sources, w.chartRefs, w.unnamed
	nameSkipped(res.Skipped, res.unnamed, res.sources)
	return res
}

// mayHold is the cheap screen before parsing: most files in a big
// repository hold no image and no chart. "imagebot" (the marker) and
// "images" contain "image" too; "hart" is in chart, Chart and helmCharts;
// "Repository" in Flux's sources; "argoproj" in every Argo CD object;
// "Image", "IMAGE", "epository", "oci://", "renovate:" in keys.go's and
// annotation.go's shapes; Crossplane's and Tekton's groups in packages.go's.
func mayHold(src []byte) bool {
	for _, s := range []string{"image", "hart", "Repository", "argoproj", "Image", "IMAGE", "epository", "oci://", "renovate:", "pkg.crossplane.io", "tekton.dev"} {
		if bytes.Contains(src, []byte(s)) {
			return true
		}
	}
	return false
}

// parse decodes every document of src. On an error it also returns how
// many bytes the parser had read: the mistake is in what it read last.
func parse(src []byte) ([]*kyaml.Node, int, error) {
	r := &trickle{src: src}
	dec := kyaml.NewDecoder(r)
	var docs []*kyaml.Node
	for {
		var n kyaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, r.off, nil
		}
		if err != nil {
			return nil, r.off, err
		}
		docs = append(docs, &n)
	}
}

// trickle hands the parser its input a little at a time, so that the bytes
// it has read when it fails say where it failed, give or take a chunk.
type trickle struct {
	src []byte
	off int
}

const trickleChunk = 64

func (t *trickle) Read(p []byte) (int, error) {
	if t.off >= len(t.src) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), trickleChunk)], t.src[t.off:])
	t.off += n
	return n, nil
}
