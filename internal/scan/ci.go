package scan

import (
	"path"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// CI files name the images their jobs run in. Their `image:` keys (a
// GitHub job's `container: {image}`, `services.*.image`, GitLab's `image:`
// string) are found as everywhere; this file adds the shapes that are no
// `image:` key. Action versions (`uses: actions/checkout@v4`) are not
// images, and not read.

// isWorkflow reports whether file is a GitHub Actions, Gitea or Forgejo
// workflow.
func isWorkflow(file string) bool {
	ext := path.Ext(file)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	dir := "/" + path.Dir(file)
	for _, d := range []string{"/.github/workflows", "/.gitea/workflows", "/.forgejo/workflows"} {
		if strings.HasSuffix(dir, d) {
			return true
		}
	}
	return false
}

// isGitLabCI reports whether file is a GitLab CI file: .gitlab-ci.yml and
// the files split from it (gitlab-ci.build.yml, deploy.gitlab-ci.yml), or
// a file included from the .gitlab/ directory by convention.
func isGitLabCI(file string) bool {
	base, ext := path.Base(file), path.Ext(file)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	return strings.Contains(base, "gitlab-ci") || strings.HasPrefix(file, ".gitlab/") || strings.Contains(file, "/.gitlab/")
}

// isCloudBuild reports whether file is a Google Cloud Build config.
func isCloudBuild(file string) bool {
	base := path.Base(file)
	return base == "cloudbuild.yaml" || base == "cloudbuild.yml" || strings.HasSuffix(base, ".cloudbuild.yaml") || strings.HasSuffix(base, ".cloudbuild.yml")
}

// cloudBuild takes the image each Cloud Build step runs in: steps[].name.
func (w *walker) cloudBuild(top *kyaml.Node) {
	steps := child(top, "steps")
	if steps == nil || steps.Kind != kyaml.SequenceNode {
		return
	}
	for _, s := range steps.Content {
		if n := mapValue(s, "name"); n != nil && hasValue(n) {
			w.refString(n, KindImage)
		}
	}
}

// workflow takes jobs.*.container written as a string, and steps that run
// a container (`uses: docker://alpine:3.20`).
func (w *walker) workflow(top *kyaml.Node) {
	jobs := child(top, "jobs")
	if jobs == nil || jobs.Kind != kyaml.MappingNode {
		return
	}
	for i := 1; i < len(jobs.Content); i += 2 {
		job := jobs.Content[i]
		if c := child(job, "container"); c != nil && c.Kind == kyaml.ScalarNode {
			w.refString(c, KindImage)
		}
		steps := child(job, "steps")
		if steps == nil || steps.Kind != kyaml.SequenceNode {
			continue
		}
		for _, s := range steps.Content {
			if u := mapValue(s, "uses"); u != nil && strings.HasPrefix(u.Value, "docker://") {
				w.schemeString(u, "docker://", KindImage)
			}
			// An action's inputs are its own: `with: {repository:
			// owner/repo, tag: v1}` downloads a release, it is no image.
			if with := child(s, "with"); with != nil && with.Kind == kyaml.MappingNode {
				w.seen[with] = true
			}
		}
	}
}

// gitlab takes GitLab CI's image: {name: ...} and services (strings, or
// {name: ...}), at the top (the global default, and `default:`) and in
// every job.
func (w *walker) gitlab(top *kyaml.Node) {
	if top == nil || top.Kind != kyaml.MappingNode {
		return
	}
	w.gitlabJob(top)
	for i := 1; i < len(top.Content); i += 2 {
		w.gitlabJob(top.Content[i])
	}
}

func (w *walker) gitlabJob(job *kyaml.Node) {
	if img := child(job, "image"); img != nil && img.Kind == kyaml.MappingNode {
		w.gitlabName(img)
	}
	svcs := child(job, "services")
	if svcs == nil || svcs.Kind != kyaml.SequenceNode {
		return
	}
	for _, s := range svcs.Content {
		switch s.Kind {
		case kyaml.ScalarNode:
			w.refString(s, KindImage)
		case kyaml.MappingNode:
			w.gitlabName(s)
		}
	}
}

// gitlabName takes {name: REFERENCE, ...}: the name is a whole reference,
// not a Helm repository, so the map is not read as a Helm image map.
func (w *walker) gitlabName(m *kyaml.Node) {
	if n := mapValue(m, "name"); n != nil && hasValue(n) {
		w.seen[m] = true
		w.refString(n, KindImage)
	}
}
