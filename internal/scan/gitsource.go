package scan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// KindGit is a version deployed by git tag (issue 28): a Flux
// GitRepository's spec.ref.tag, an Argo CD git source's targetRevision, a
// kustomize remote base's ?ref=, a release asset's tag in its URL. Ref.Git
// names the repository; Tag holds the tag and TagField its bytes only.
const KindGit Kind = "git"

// GitSource is the git repository whose tag a Ref holds.
type GitSource struct {
	// URL is what the tags are listed from: https://HOST/PATH as written
	// (http:// only when written so; ssh and scp-like spellings are asked
	// over https on their host), without credentials or a trailing .git.
	URL string
	// Asset, for a release asset (or raw file) URL, is that URL as
	// written, its tag at AssetTag: it moves only when the new tag serves
	// it too (AssetFor).
	Asset    string
	AssetTag int
	// Credentials are those the URL was written with, for its host alone.
	Credentials Credentials
}

// Match is the repository as policies match it and imagebot prints it:
// its URL without the scheme ("github.com/argoproj/argo-rollouts").
func (g GitSource) Match() string {
	_, rest, _ := strings.Cut(g.URL, "://")
	return rest
}

// AssetFor is the asset's URL at tag instead of from, the tag written;
// "" for a reference that is no asset.
func (g GitSource) AssetFor(from, tag string) string {
	if g.Asset == "" || g.AssetTag+len(from) > len(g.Asset) || g.Asset[g.AssetTag:g.AssetTag+len(from)] != from {
		return ""
	}
	return g.Asset[:g.AssetTag] + tag + g.Asset[g.AssetTag+len(from):]
}

// SkipNotTag: a git revision that is not a tag (a branch, HEAD, a commit,
// no revision at all): it follows the branch or stays on the commit by
// itself, and writing a tag there would change what the author asked for.
const SkipNotTag = "not-a-tag"

// gitRepoURL reads a git repository URL as written into the URL its tags
// are listed from and the credentials written in it. bare allows
// "github.com/org/repo" without a scheme (kustomize's spelling).
func gitRepoURL(s string, bare bool) (string, Credentials, error) {
	s, cred := stripUserinfo(strings.TrimSpace(s))
	scheme, rest, ok := strings.Cut(s, "://")
	switch {
	case ok && (scheme == "https" || scheme == "http"):
	case ok && (scheme == "ssh" || scheme == "git+ssh"):
		scheme, cred = "https", Credentials{}
		if at := strings.Index(rest, "@"); at >= 0 && at < strings.IndexByte(rest+"/", '/') {
			rest = rest[at+1:]
		}
		if host, path, ok := strings.Cut(rest, "/"); ok {
			if h, _, ok := strings.Cut(host, ":"); ok {
				host = h // ssh's port says nothing of https's
			}
			rest = host + "/" + path
		}
	case !ok && scpLike.MatchString(s):
		m := scpLike.FindStringSubmatch(s)
		scheme, rest = "https", m[1]+"/"+strings.TrimPrefix(m[2], "/")
	case !ok && bare:
		scheme = "https"
		rest = s
	default:
		return "", Credentials{}, fmt.Errorf("repository %s is not an https://, ssh:// or git@ URL", quote(s))
	}
	rest = strings.TrimSuffix(strings.TrimRight(rest, "/"), ".git")
	host, path, _ := strings.Cut(rest, "/")
	if host == "" || path == "" || strings.ContainsAny(rest, " \t\r\n?#\\") {
		return "", Credentials{}, fmt.Errorf("repository %s is not a URL of a git repository (HOST/PATH)", quote(s))
	}
	return scheme + "://" + strings.ToLower(host) + "/" + path, cred, nil
}

// scpLike is git's scp-like syntax: git@github.com:org/repo.git.
var scpLike = regexp.MustCompile(`^[A-Za-z0-9._-]+@([A-Za-z0-9.-]+):([^/].*)$`)

// commitRE is a full commit hash, or an abbreviated one (7 or more hex
// digits with both a letter and a digit, which no version tag is).
var commitRE = regexp.MustCompile(`^[0-9a-f]{40}$|^[0-9a-f]{64}$`)

func isCommit(v string) bool {
	if commitRE.MatchString(v) {
		return true
	}
	if len(v) < 7 || len(v) > 40 || strings.Trim(v, "0123456789abcdef") != "" {
		return false
	}
	return strings.ContainsAny(v, "abcdef") && strings.ContainsAny(v, "0123456789")
}

// isGitRange tells a semver range written as a revision (Argo CD takes
// "1.2.*" or ">=1.0.0 <2" for a tag range) from a tag: only a constraint
// with an operator or a wildcard is one, so that "v1.2" stays a tag.
func isGitRange(v string) bool {
	if !strings.ContainsAny(v, "*^~<>=|, ") && !strings.HasSuffix(v, ".x") && !strings.HasSuffix(v, ".X") {
		return false
	}
	_, err := semver.NewConstraint(v)
	return err == nil
}

// wellKnownBranches are names that are branches wherever they are used;
// other branch names are told from tags by the repository's listing.
var wellKnownBranches = map[string]bool{"HEAD": true, "main": true, "master": true, "trunk": true, "develop": true}

// gitRevision classifies rev, the revision written for the repository;
// it returns "" for a tag to look up, else the reason and detail of the
// notice. tool says who reads the revision, for the detail.
func gitRevision(rev, tool string) (reason, detail string) {
	switch {
	case rev == "":
		return SkipNotTag, fmt.Sprintf("no revision: %s follows the default branch; write a tag to have it updated", tool)
	case rev == "HEAD":
		return SkipNotTag, fmt.Sprintf("revision HEAD: %s follows the default branch; write a tag to have it updated", tool)
	case wellKnownBranches[rev] || strings.HasPrefix(rev, "refs/heads/"):
		return SkipNotTag, fmt.Sprintf("revision %s is a branch: %s follows it; write a tag to have it updated", quote(rev), tool)
	case isCommit(rev):
		return SkipNotTag, fmt.Sprintf("revision %s is a commit: a pin that only a person moves; write a tag to have it updated", quote(rev))
	case isGitRange(rev):
		return SkipRange, fmt.Sprintf("tag range %s: %s picks the tag; write one tag to have it updated", quote(rev), tool)
	case strings.ContainsAny(rev, "\n\r"):
		return SkipInvalid, errSeveralLines.Error()
	case strings.ContainsAny(rev, " \t~^:?*[\\") || strings.Contains(rev, ".."):
		return SkipInvalid, fmt.Sprintf("revision %s is not a valid git tag name", quote(rev))
	}
	return "", ""
}

// gitAt records the tag in scalar v (bytes [off, off+len(tag)) of its
// value) as a reference to repository g.
func (w *walker) gitAt(v *kyaml.Node, g GitSource, off int, tag string) {
	span, ok := w.span(v)
	if !ok {
		w.problem(v, "cannot locate revision %s in the file's bytes; left untouched", quote(tag))
		return
	}
	w.seen[v] = true
	full := off == 0 && len(tag) == len(v.Value)
	r := Ref{
		Location: w.at(v), Kind: KindGit, Name: g.Match(), Image: g.Match(), Tag: tag,
		TagField: Field{Span: Span{span.Start + off, span.Start + off + len(tag)}, OK: true, Scalar: full && v.Style == 0},
		Git:      &g,
	}
	w.charts = append(w.charts, r)
}

func (w *walker) gitSkip(at *kyaml.Node, match, rev, reason, detail string) {
	value := match
	if rev != "" {
		value += "@" + rev
	}
	w.skipped = append(w.skipped, Skipped{Location: w.at(at), Kind: KindGit, Value: clip(value), Image: match, Reason: reason, Detail: detail})
}

// gitRevisionAt takes the revision in scalar rev (nil or empty: none, at
// names where the notice goes) of repository url, read by tool.
func (w *walker) gitRevisionAt(url, rev, at *kyaml.Node, tool string, bare bool) {
	if rev != nil && hasValue(rev) {
		at = rev
	}
	if at != nil && w.seen[at] {
		return
	}
	value := ""
	if rev != nil && hasValue(rev) {
		value = rev.Value
	}
	if isVariable(url.Value) || isVariable(value) {
		w.skip(w.at(at), KindGit, scrub(url.Value)+"@"+value, "")
		return
	}
	u, cred, err := gitRepoURL(url.Value, bare)
	if err != nil {
		w.gitSkip(at, scrub(url.Value), value, SkipInvalid, err.Error())
		return
	}
	g := GitSource{URL: u, Credentials: cred}
	if reason, detail := gitRevision(value, tool); reason != "" {
		w.gitSkip(at, g.Match(), value, reason, detail)
		return
	}
	w.gitAt(rev, g, 0, rev.Value)
}

// gitRepository takes a Flux GitRepository's spec.ref. Flux reads commit
// over name over semver over tag over branch, and the default branch
// when there is no ref: only a tag is a reference.
func (w *walker) gitRepository(obj *kyaml.Node) {
	spec := child(obj, "spec")
	url := mapValue(spec, "url")
	if url == nil || !hasValue(url) {
		return
	}
	ref := child(spec, "ref")
	match := scrub(url.Value)
	if u, _, err := gitRepoURL(url.Value, false); err == nil {
		match = GitSource{URL: u}.Match()
	}
	for _, k := range []string{"commit", "name", "semver"} {
		v := mapValue(ref, k)
		if v == nil || !hasValue(v) {
			continue
		}
		switch k {
		case "semver":
			w.gitSkip(v, match, v.Value, SkipRange, fmt.Sprintf("semver range %s: Flux picks the tag; write ref.tag to have it updated", quote(v.Value)))
		case "commit":
			w.gitSkip(v, match, v.Value, SkipNotTag, "ref.commit: a pin that only a person moves; write ref.tag to have it updated")
		default:
			w.gitSkip(v, match, v.Value, SkipNotTag, "ref.name: a git reference Flux follows as written; write ref.tag to have it updated")
		}
		return
	}
	if tag := mapValue(ref, "tag"); tag != nil && hasValue(tag) {
		w.gitRevisionAt(url, tag, url, "Flux", false)
		return
	}
	if b := mapValue(ref, "branch"); b != nil && hasValue(b) {
		w.gitSkip(b, match, b.Value, SkipNotTag, fmt.Sprintf("ref.branch %s: Flux follows the branch; write ref.tag to have it updated", quote(b.Value)))
		return
	}
	w.gitRevisionAt(url, nil, url, "Flux", false)
}

// argoGit takes an Argo CD source whose repoURL is a git repository (no
// chart:): its targetRevision is a tag, a branch, HEAD or a commit.
func (w *walker) argoGit(repo, rev *kyaml.Node) {
	if strings.HasPrefix(repo.Value, "oci://") {
		at := repo
		if rev != nil && hasValue(rev) {
			at = rev
		}
		w.chartSkip(at, KindArgoCD, Chart{}, repo.Value, SkipNotChart, "repoURL is an OCI artifact without chart:: its targetRevision is an artifact's tag, not a chart version")
		return
	}
	w.gitRevisionAt(repo, rev, repo, "Argo CD", false)
}

// argoGenerators takes the git generators of an ApplicationSet
// (generators[].git: repoURL, revision), also inside matrix and merge
// generators, which nest two levels at most in Argo CD.
func (w *walker) argoGenerators(list *kyaml.Node, depth int) {
	if list == nil || list.Kind != kyaml.SequenceNode || depth > 2 {
		return
	}
	for _, g := range list.Content {
		if git := child(g, "git"); git != nil && git.Kind == kyaml.MappingNode {
			if repo := mapValue(git, "repoURL"); repo != nil && hasValue(repo) {
				w.gitRevisionAt(repo, mapValue(git, "revision"), repo, "Argo CD", false)
			}
		}
		for _, kind := range []string{"matrix", "merge"} {
			w.argoGenerators(childPath(g, kind, "generators"), depth+1)
		}
	}
}
