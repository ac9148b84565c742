package scan

import (
	"bytes"
	"regexp"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/imagebot/imagebot/internal/imagename"
)

// scalar looks at every value the walk passes: a line comment marker, a
// Renovate annotation on the line above, an oci:// reference, YAML inside
// a block string.
func (w *walker) scalar(n *kyaml.Node) {
	if n.Kind != kyaml.ScalarNode {
		return
	}
	w.marker(n)
	w.renovate(n)
	if strings.HasPrefix(n.Value, "oci://") {
		w.schemeString(n, "oci://", KindOCI)
	}
	if n.Style&kyaml.LiteralStyle != 0 {
		w.blockString(n)
	}
}

// schemeString takes `oci://REGISTRY/REPO:TAG` (Flux Operator's
// distribution.artifact, `helm install oci://...` values) and a workflow
// step's `docker://IMAGE:TAG`: the part after the scheme is a reference
// whose tag is updated. Without a tag or digest it names a repository (an
// Argo CD repoURL, an OCIRepository url), whose version is written
// elsewhere: not a reference.
func (w *walker) schemeString(n *kyaml.Node, prefix string, kind Kind) {
	if w.seen[n] || !hasValue(n) {
		return
	}
	scheme := len(prefix)
	p, err := parseRef(n.Value[scheme:])
	if err != nil || (p.tagStart < 0 && p.digestStart < 0) {
		return
	}
	span, ok := w.span(n)
	if !ok {
		return // a block or escaped string is no artifact URL
	}
	w.seen[n] = true
	r := Ref{Location: w.at(n), Kind: kind, Name: p.name, Repo: p.repo, Tag: p.tag, Digest: p.digest}
	r.TagField, r.DigestField = stringFields(Span{span.Start + scheme, span.End}, p)
	w.add(r)
}

// chartMarker takes scalar n as the version of chart (REPOSITORY/NAME,
// the repository an https:// or oci:// URL), which a marker named.
func (w *walker) chartMarker(n *kyaml.Node, chart, want string) {
	i := strings.LastIndexByte(chart, '/')
	if i < 0 {
		w.problem(n, "marker names no chart (want %s)", want)
		return
	}
	repo, cred, err := chartRepository(chart[:i], false)
	if err != nil || chart[i+1:] == "" {
		w.problem(n, "marker: chart %s is not <https:// or oci:// repository>/<chart> (want %s)", quote(chart), want)
		return
	}
	w.chartVersion(KindChartMarker, Chart{Repository: repo, Name: chart[i+1:], Credentials: cred}, n, n, "")
}

// renovateRE is a Renovate annotation: a comment line of its own,
// `# renovate: datasource=docker depName=ghcr.io/acme/app`.
var renovateRE = regexp.MustCompile(`^\s*#\s*renovate:\s*(.*?)\s*$`)

// renovate honours a Renovate annotation on the line above n, so that a
// team switching over keeps its annotations working: datasource=docker
// reads n as a reference to depName, or as a tag of it; datasource=helm
// reads n as the version of chart depName in registryUrl; the git
// datasources (git-tags, github-releases, ...) read n as a git tag of the
// repository (renovateGit). Others (npm, pypi, ...) are left alone.
func (w *walker) renovate(n *kyaml.Node) {
	note, ok := w.note(n.Line - 1)
	// A line below that holds no version (`- name: nginx`, the version
	// further down for a custom regex to find) is not the one meant.
	if !ok || w.seen[n] || !hasValue(n) || !strings.ContainsAny(n.Value, "0123456789") {
		return
	}
	f := fields(note)
	dep, want := f["depName"], "`# renovate: datasource=docker depName=<image>`"
	// packageName (lookupName before it) is what Renovate looks up, when
	// depName is only the name shown.
	for _, k := range []string{"lookupName", "packageName"} {
		if f[k] != "" {
			dep = f[k]
		}
	}
	switch f["datasource"] {
	case "docker":
		if dep == "" {
			w.problem(n, "annotation on line %d names no depName (want %s)", n.Line-1, want)
			return
		}
		if u := f["registryUrl"]; u != "" && !strings.Contains(strings.SplitN(dep, "/", 2)[0], ".") {
			dep = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "/") + "/" + dep
		}
		if p, err := parseRef(n.Value); err == nil && strings.ContainsAny(n.Value, ":@/") && sameImage(p.name, dep) {
			w.refString(n, KindMarker)
			return
		}
		w.markedTag(n, dep, want)
	case "helm":
		want = "`# renovate: datasource=helm depName=<chart> registryUrl=<url>`"
		if dep == "" || f["registryUrl"] == "" {
			w.problem(n, "annotation on line %d names no depName or no registryUrl (want %s)", n.Line-1, want)
			return
		}
		w.chartMarker(n, strings.TrimSuffix(f["registryUrl"], "/")+"/"+dep, want)
	case "git-tags", "github-tags", "github-releases", "gitlab-tags", "gitlab-releases", "gitea-tags", "gitea-releases":
		w.renovateGit(n, f["datasource"], dep, f["registryUrl"])
	}
}

// renovateGit reads n, under a Renovate annotation of a git datasource, as
// a tag of the repository the annotation names: git-tags names its URL;
// the forges' datasources name owner/repo on github.com or gitlab.com,
// or on registryUrl's host. The tag is looked up as any git-sourced
// version is (issue 28): listed with git's protocol, chosen by the stream
// rule and the policies.
func (w *walker) renovateGit(n *kyaml.Node, datasource, dep, registryURL string) {
	want := "`# renovate: datasource=" + datasource + " depName=<owner>/<repository>`"
	if datasource == "git-tags" {
		want = "`# renovate: datasource=git-tags depName=<repository URL>`"
	}
	if dep == "" {
		w.problem(n, "annotation on line %d names no depName (want %s)", n.Line-1, want)
		return
	}
	url := dep
	if datasource != "git-tags" {
		host := "https://github.com"
		if strings.HasPrefix(datasource, "gitlab-") {
			host = "https://gitlab.com"
		}
		if registryURL != "" {
			host = strings.TrimSuffix(registryURL, "/")
			host = strings.TrimSuffix(host, "/api/v4") // GitLab's API, as Renovate takes it
			host = strings.TrimSuffix(host, "/api/v3") // GitHub Enterprise's
		}
		url = host + "/" + strings.Trim(dep, "/")
	}
	u, cred, err := gitRepoURL(url, false)
	if err != nil {
		w.gitSkip(n, scrub(url), n.Value, SkipInvalid, err.Error())
		return
	}
	g := GitSource{URL: u, Credentials: cred}
	if reason, detail := gitRevision(n.Value, "the value"); reason != "" {
		w.gitSkip(n, g.Match(), n.Value, reason, detail)
		return
	}
	w.gitAt(n, g, 0, n.Value)
}

// sameImage reports whether two names spell one repository.
func sameImage(a, b string) bool {
	ra, err := imagename.Parse(a)
	if err != nil {
		return false
	}
	rb, err := imagename.Parse(b)
	return err == nil && imagename.String(ra) == imagename.String(rb)
}

// note returns the Renovate annotation that stands alone on a line.
func (w *walker) note(line int) (string, bool) {
	if w.notes == nil {
		w.notes = map[int]string{}
		if bytes.Contains(w.lines.src, []byte("renovate:")) {
			for i := range w.lines.starts {
				l := w.lines.src[w.lines.starts[i]:w.lines.end(i+1)]
				if m := renovateRE.FindSubmatch(l); m != nil {
					w.notes[i+1] = string(m[1])
				}
			}
		}
	}
	s, ok := w.notes[line]
	return s, ok
}

// fields splits `key=value key=value` (Renovate's annotation syntax).
func fields(s string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Fields(s) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			out[k] = v
		}
	}
	return out
}
