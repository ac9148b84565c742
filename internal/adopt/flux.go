package adopt

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/imagename"
	"github.com/imagebot/imagebot/internal/scan"
)

// fluxGroup is the API group of Flux's image automation objects; every
// version (v1beta1, v1beta2, v1) spells the fields converted here alike.
const fluxGroup = "image.toolkit.fluxcd.io/"

// fluxMarkerKey is in every file with a `$imagepolicy` marker.
const fluxMarkerKey = `"$imagepolicy"`

// fluxRepo is an ImageRepository: which image the registry is asked about.
type fluxRepo struct {
	ns, name string
	image    string // normalized
	file     string
	line     int
	spec     *yaml.Node
}

// fluxPolicy is an ImagePolicy: how the latest tag of a repository is chosen.
type fluxPolicy struct {
	ns, name         string
	repoNS, repoName string
	file             string
	line             int
	spec             *yaml.Node
	repo             *fluxRepo
	markers          int      // $imagepolicy markers that name it
	files            []string // the files of those markers
	// paths scopes the converted policy to files, when another
	// ImagePolicy of the same image is the one most markers use.
	paths []string
}

func (p *fluxPolicy) String() string { return qualified(p.ns, p.name) }

func qualified(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// fluxObjects reads every ImageRepository and ImagePolicy in the
// repository, and in the same pass every `$imagepolicy` marker (res is the
// scan of the repository, to tell the lines imagebot reads anyway).
func fluxObjects(ctx context.Context, fsys fs.FS, res scan.Result, ns *notes) ([]*fluxRepo, []*fluxPolicy, []fluxMark, []fluxAutomation, error) {
	byFile := map[string][]scan.Ref{}
	for _, r := range res.Refs {
		byFile[r.File] = append(byFile[r.File], r)
	}
	var repos []*fluxRepo
	var pols []*fluxPolicy
	var marks []fluxMark
	var automations []fluxAutomation
	err := yamlFiles(ctx, fsys, ns, []string{fluxGroup, fluxMarkerKey}, func(file string, src []byte) {
		if bytes.Contains(src, []byte(fluxMarkerKey)) {
			marks = append(marks, readMarks(file, src, byFile[file])...)
		}
		if !bytes.Contains(src, []byte(fluxGroup)) {
			return
		}
		for _, doc := range documents(file, src, ns) {
			if !strings.HasPrefix(scalar(doc, "apiVersion"), fluxGroup) {
				continue
			}
			meta := get(doc, "metadata")
			spec := get(doc, "spec")
			switch scalar(doc, "kind") {
			case "ImageRepository":
				r := &fluxRepo{ns: scalar(meta, "namespace"), name: scalar(meta, "name"), file: file, line: doc.Line, spec: spec}
				img := scalar(spec, "image")
				norm, err := imagename.Normalize(img)
				if err != nil {
					ns.add(file, lineAt(spec, doc, "image"), "ImageRepository %s: image %q is not a repository name: %v", qualified(r.ns, r.name), img, err)
					continue
				}
				r.image = norm
				repos = append(repos, r)
			case "ImageUpdateAutomation":
				automations = append(automations, fluxAutomation{
					name: qualified(scalar(meta, "namespace"), scalar(meta, "name")), file: file, line: doc.Line, spec: spec,
				})
			case "ImagePolicy":
				p := &fluxPolicy{ns: scalar(meta, "namespace"), name: scalar(meta, "name"), file: file, line: doc.Line, spec: spec}
				p.repoName = scalar(spec, "imageRepositoryRef", "name")
				p.repoNS = scalar(spec, "imageRepositoryRef", "namespace")
				if p.repoNS == "" {
					p.repoNS = p.ns
				}
				pols = append(pols, p)
			}
		}
	})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("read Flux objects: %w", err)
	}
	for _, p := range pols {
		for _, r := range repos {
			if r.name == p.repoName && (r.ns == p.repoNS || r.ns == "" || p.repoNS == "") {
				p.repo = r
				break
			}
		}
		if p.repo == nil {
			ns.add(p.file, p.line, "ImagePolicy %s: its ImageRepository %s is not in the repository, so its image is unknown; not converted", p, qualified(p.repoNS, p.repoName))
		}
	}
	return repos, pols, marks, automations, nil
}

// fluxAutomation is an ImageUpdateAutomation: how Flux committed and
// where it pushed.
type fluxAutomation struct {
	name string
	file string
	line int
	spec *yaml.Node
}

// lineAt is the line of key in n, or of fallback when n lacks it.
func lineAt(n, fallback *yaml.Node, keys ...string) int {
	if v := get(n, keys...); v != nil {
		return v.Line
	}
	if n != nil {
		return n.Line
	}
	return fallback.Line
}
