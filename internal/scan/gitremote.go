package scan

import (
	"fmt"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// remote is a kustomization entry (resources, bases, components) that
// names something in another git repository: a remote base
// (github.com/org/repo//path?ref=v1.2.3) or a release asset's URL
// (https://github.com/o/r/releases/download/v1.2.3/install.yaml).
type remote struct {
	repo  string // the repository as written, for gitRepoURL
	bare  bool   // repo may have no scheme
	rev   string
	start int  // rev's offset in the entry; -1 when no revision is written
	asset bool // a file at a tag, which the new tag must serve too
	// notTag, for an asset URL, says why its revision is none (a branch or
	// commit path segment).
	notTag string
}

// knownForges are the hosts where kustomize takes org/repo as the
// repository when no "//" says where its path starts.
var knownForges = map[string]bool{"github.com": true, "gitlab.com": true, "bitbucket.org": true}

// readRemote reads entry; false for a local path, or an HTTP file that
// is no release asset (kustomize fetches it as it is).
func readRemote(s string) (remote, bool) {
	if r, ok := readAsset(s); ok {
		return r, true
	}
	base, query, _ := strings.Cut(s, "?")
	body := strings.TrimPrefix(base, "git::")
	scheme, rest, hasScheme := strings.Cut(body, "://")
	scp := !hasScheme && scpLike.MatchString(body)
	first, _, _ := strings.Cut(rest, "/")
	if !hasScheme {
		first, _, _ = strings.Cut(body, "/")
	}
	switch {
	case hasScheme && (scheme == "ssh" || scheme == "git+ssh"):
	case hasScheme && (scheme == "https" || scheme == "http"):
		// An http(s) file is a git remote only when it says so, or is on a
		// forge where kustomize reads org/repo/path as one.
		if !strings.Contains(rest, "//") && !strings.Contains(rest, ".git") && query == "" && !knownForges[strings.ToLower(first)] {
			return remote{}, false
		}
	case hasScheme:
		return remote{}, false
	case scp:
	case strings.Contains(first, ".") && first != "." && first != ".." && (knownForges[first] || strings.Contains(body, "//") || strings.Contains(body, ".git")):
	default:
		return remote{}, false
	}
	r := remote{repo: repoPart(body, hasScheme), bare: !hasScheme && !scp, start: -1}
	// The revision: ref= (or version=, kustomize's older name) in the query.
	off := len(base) + 1
	for _, kv := range strings.Split(query, "&") {
		k, v, has := strings.Cut(kv, "=")
		if has && (k == "ref" || k == "version") && r.start < 0 {
			r.rev, r.start = v, off+len(k)+1
		}
		off += len(kv) + 1
	}
	return r, true
}

// repoPart is the repository of a remote base: up to the "//" that starts
// the path in it, or its ".git", or org/repo on a known forge.
func repoPart(body string, hasScheme bool) string {
	from := 0
	if hasScheme {
		from = strings.Index(body, "://") + 3
	}
	if i := strings.Index(body[from:], "//"); i >= 0 {
		return body[:from+i]
	}
	if i := strings.Index(body[from:], ".git/"); i >= 0 {
		return body[:from+i+4]
	}
	host, path, _ := strings.Cut(body[from:], "/")
	if h := strings.ToLower(host[strings.LastIndex(host, "@")+1:]); knownForges[h] || strings.HasPrefix(h, "github.com:") {
		parts := strings.SplitN(path, "/", 3)
		if len(parts) >= 2 {
			return body[:from] + host + "/" + parts[0] + "/" + parts[1]
		}
	}
	return body
}

// readAsset reads a release asset or raw file URL whose path names a tag:
//   - https://HOST/O/R/releases/download/TAG/FILE (GitHub, Gitea, Forgejo)
//   - https://HOST/O/R/raw/TAG/PATH, …/raw/refs/tags/TAG/PATH, …/raw/tag/TAG/PATH
//   - https://raw.githubusercontent.com/O/R/TAG/PATH (and refs/tags/TAG)
func readAsset(s string) (remote, bool) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (scheme != "https" && scheme != "http") || strings.ContainsAny(s, "?#") {
		return remote{}, false
	}
	host, path, _ := strings.Cut(rest, "/")
	seg := strings.Split(path, "/")
	prefix := len(scheme) + 3 + len(host) + 1 // the offset of seg[0]
	at := func(i int) int {                   // the offset of seg[i]
		n := prefix
		for _, p := range seg[:i] {
			n += len(p) + 1
		}
		return n
	}
	r := remote{asset: true, start: -1}
	tagAt := -1
	switch {
	case len(seg) < 4:
		return remote{}, false
	case strings.EqualFold(host, "raw.githubusercontent.com"):
		r.repo = "https://github.com/" + seg[0] + "/" + seg[1]
		tagAt = 2
	case len(seg) >= 6 && seg[2] == "releases" && seg[3] == "download":
		r.repo = scheme + "://" + host + "/" + seg[0] + "/" + seg[1]
		tagAt = 4
	case len(seg) >= 6 && seg[2] == "releases" && seg[3] == "latest" && seg[4] == "download":
		r.repo = scheme + "://" + host + "/" + seg[0] + "/" + seg[1]
		tagAt = 3
		r.notTag = "the URL names the latest release (releases/latest), which moves by itself"
	case len(seg) >= 5 && seg[2] == "raw":
		r.repo = scheme + "://" + host + "/" + seg[0] + "/" + seg[1]
		tagAt = 3
		switch seg[3] {
		case "tag":
			tagAt = 4
		case "branch", "commit":
			r.notTag = fmt.Sprintf("the URL names a %s (raw/%s/%s), not a tag: it follows it", seg[3], seg[3], seg[4])
		}
	default:
		return remote{}, false
	}
	if seg[tagAt] == "refs" && tagAt+2 < len(seg) {
		switch seg[tagAt+1] {
		case "tags":
			tagAt += 2
		case "heads":
			r.notTag = fmt.Sprintf("the URL names the branch %s (refs/heads), not a tag: it follows the branch", seg[tagAt+2])
		}
	}
	if tagAt+1 >= len(seg) || seg[tagAt+1] == "" {
		return remote{}, false // a tag and no file
	}
	r.rev, r.start = seg[tagAt], at(tagAt)
	if r.notTag != "" {
		r.rev = seg[len(seg)-1] // no tag: the notice names the file
		switch seg[tagAt] {
		case "latest":
			r.rev = "latest"
		case "refs": // refs/heads/BRANCH
			r.rev = seg[tagAt+2]
		case "branch", "commit":
			r.rev = seg[tagAt+1]
		}
	}
	return r, true
}

// kustomizeRemotes takes the remote bases and release assets of a
// kustomization's resources, bases and components.
func (w *walker) kustomizeRemotes(top *kyaml.Node) {
	for _, key := range []string{"resources", "bases", "components"} {
		list := child(top, key)
		if list == nil || list.Kind != kyaml.SequenceNode {
			continue
		}
		for _, e := range list.Content {
			if e.Kind == kyaml.ScalarNode && hasValue(e) {
				w.remoteEntry(e)
			}
		}
	}
}

func (w *walker) remoteEntry(e *kyaml.Node) {
	r, ok := readRemote(e.Value)
	if !ok || w.seen[e] {
		return
	}
	if isVariable(e.Value) {
		w.skip(w.at(e), KindGit, e.Value, "")
		return
	}
	u, cred, err := gitRepoURL(r.repo, r.bare)
	if err != nil {
		w.gitSkip(e, scrub(r.repo), r.rev, SkipInvalid, err.Error())
		return
	}
	g := GitSource{URL: u, Credentials: cred}
	switch {
	case r.notTag != "":
		w.gitSkip(e, g.Match(), r.rev, SkipNotTag, r.notTag+"; write a tag to have it updated")
		return
	case r.start < 0:
		w.gitSkip(e, g.Match(), "", SkipNotTag, "no ?ref=: kustomize takes the default branch; write ?ref=TAG to have it updated")
		return
	}
	if reason, detail := gitRevision(r.rev, "kustomize"); reason != "" {
		w.gitSkip(e, g.Match(), r.rev, reason, detail)
		return
	}
	if r.asset {
		g.Asset, g.AssetTag = e.Value, r.start
		g.Credentials = Credentials{} // an asset URL's host may be another than the repository's
	}
	w.gitAt(e, g, r.start, r.rev)
}
