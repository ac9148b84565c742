// Package forgetest is what the fake git hosts (githubtest, gitlabtest,
// giteatest) share: serving under a path (Mount) and the repositories'
// content, branches, compare and merges over gittest's bare repositories
// (BareRepos, a GitBackend), moved out of the GitHub fake so that no fake
// imports another. It serves no host itself.
package forgetest

import (
	"net/http"
	"strings"
)

// Mount serves h under base ("/gitlab"), as a host installed at a path
// answers: h sees paths without base, and anything outside base is a 404,
// so that a client that drops the path fails as it would on the real host.
// An empty base (or "/") serves h at the root.
func Mount(base string, h http.Handler) http.Handler {
	base = strings.TrimSuffix(base, "/")
	if base == "" {
		return h
	}
	if !strings.HasPrefix(base, "/") {
		panic("forgetest.Mount: base path " + base + " must start with /")
	}
	inner := http.StripPrefix(base, h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, base+"/") {
			http.NotFound(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
}
