package azuretest

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
)

// WithGitRemote serves git over smart HTTP at the collection's own clone
// URL, as Azure Repos does ({collection}/{project}/_git/{repo}), by
// passing those requests to remote, the repository's URL on a git server
// (gittest's, ".../owner/name.git"), whose credentials apply. A clone's
// origin is then in the collection that SYSTEM_COLLECTIONURI names, and
// git requests are not counted as API requests.
func WithGitRemote(remote string) Option {
	return func(s *Server) {
		target, err := url.Parse(remote)
		if err != nil {
			panic(err)
		}
		s.gitRemote = &httputil.ReverseProxy{Rewrite: func(pr *httputil.ProxyRequest) {
			rest := pr.In.URL.Path[len(s.gitPrefix()):]
			pr.Out.URL.Scheme, pr.Out.URL.Host = target.Scheme, target.Host
			pr.Out.URL.Path, pr.Out.URL.RawPath = strings.TrimSuffix(target.Path, "/")+rest, ""
			pr.Out.Host = target.Host
		}}
	}
}

// CloneURL is the repository's https clone URL, as Azure Repos hands it
// out: {collection}/{project}/_git/{repo}, the project's spaces escaped.
func (s *Server) CloneURL() string {
	return s.URL() + "/" + url.PathEscape(s.project) + "/_git/" + url.PathEscape(s.repo)
}

// gitPrefix is the path, below the base path, that git is served under.
func (s *Server) gitPrefix() string { return "/" + Org + "/" + s.project + "/_git/" + s.repo }

// serveGit passes a git request to the git remote; false when r is not one.
func (s *Server) serveGit(w http.ResponseWriter, r *http.Request) bool {
	if s.gitRemote == nil {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, s.gitPrefix())
	if !ok || (rest != "" && !strings.HasPrefix(rest, "/")) {
		return false
	}
	s.gitRemote.ServeHTTP(w, r)
	return true
}
