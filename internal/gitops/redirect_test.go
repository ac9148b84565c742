package gitops_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
)

// recorder is a second local host that records the headers of every
// request it receives.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []http.Header
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.seen = append(r.seen, req.Header.Clone())
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"default_branch":"main","id":1}`)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seen
}

// forgeTokens are tokens as each host hands them out.
var forgeTokens = map[gitops.Kind]string{
	gitops.GitHub: "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
	gitops.GitLab: "glpat-Zq8xT3vW9yB2nK7mR4pL",
	gitops.Gitea:  "5f0c2d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e",
}

// TestTokensNeverFollowRedirects: an API answering with a redirect to
// another port of the same host, or to another host, never gets the
// token there: the request is refused, without a request to the other
// host, and the error says why (issue 25, item 1).
func TestTokensNeverFollowRedirects(t *testing.T) {
	for _, kind := range []gitops.Kind{gitops.GitHub, gitops.GitLab, gitops.Gitea} {
		for _, target := range []string{"another port", "another host"} {
			t.Run(string(kind)+"/"+target, func(t *testing.T) {
				other := newRecorder(t)
				to := other.URL
				if target == "another host" {
					to = strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
				}
				api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, to+r.URL.RequestURI(), http.StatusFound)
				}))
				defer api.Close()
				tok := forgeTokens[kind]
				_, err := gitops.Open(t.Context(), gitops.Options{Forge: kind, APIURL: api.URL, Repository: "acme/app", Token: tok})
				if err == nil || !strings.Contains(err.Error(), "refusing a redirect") {
					t.Errorf("Open: %v, want the redirect refused", err)
				}
				if err != nil && strings.Contains(err.Error(), tok) {
					t.Errorf("the error quotes the token: %v", err)
				}
				for _, h := range other.headers() {
					t.Errorf("the other host got a request with headers %v", h)
				}
			})
		}
	}
}

// TestSameOriginRedirectIsFollowed: a redirect on the API's own origin (a
// renamed repository) is followed, with the token.
func TestSameOriginRedirectIsFollowed(t *testing.T) {
	var mu sync.Mutex
	var auth string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/repos/acme/app" {
			http.Redirect(w, r, "/repositories/1", http.StatusMovedPermanently)
			return
		}
		mu.Lock()
		auth = r.Header.Get("Authorization")
		mu.Unlock()
		http.Error(w, `{"message":"stop here"}`, http.StatusNotFound)
	}))
	defer api.Close()
	tok := forgeTokens[gitops.GitHub]
	_, err := gitops.Open(t.Context(), gitops.Options{Forge: gitops.GitHub, APIURL: api.URL, Repository: "acme/app", Token: tok})
	if err == nil || strings.Contains(err.Error(), "refusing a redirect") {
		t.Errorf("Open: %v, want the redirect followed to a 404", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if auth != "Bearer "+tok {
		t.Errorf("the moved repository's request had Authorization %q, want the token", auth)
	}
}

// TestErrorPagesQuotingTheRequestAreScrubbed: an error body that quotes
// the request's headers, as some proxies' and servers' error pages do,
// reaches no error with the token in it, nor any other token it quotes
// (issue 25, item 2).
func TestErrorPagesQuotingTheRequestAreScrubbed(t *testing.T) {
	const stranger = "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ012345"
	for _, kind := range []gitops.Kind{gitops.GitHub, gitops.GitLab, gitops.Gitea} {
		for _, format := range []string{"json", "text"} {
			t.Run(string(kind)+"/"+format, func(t *testing.T) {
				api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var dump strings.Builder
					fmt.Fprintf(&dump, "%s %s\n", r.Method, r.URL.RequestURI())
					r.Header.Write(&dump)
					fmt.Fprintf(&dump, "X-Forwarded-Authorization: Bearer %s\n", stranger)
					if format == "json" {
						w.Header().Set("Content-Type", "application/json")
						w.WriteHeader(http.StatusUnauthorized)
						fmt.Fprintf(w, `{"message":%q}`, "Bad credentials for request:\n"+dump.String())
						return
					}
					w.Header().Set("Content-Type", "text/plain")
					w.WriteHeader(http.StatusUnauthorized)
					fmt.Fprint(w, "401 Unauthorized\n"+dump.String())
				}))
				defer api.Close()
				tok := forgeTokens[kind]
				_, err := gitops.Open(t.Context(), gitops.Options{Forge: kind, APIURL: api.URL, Repository: "acme/app", Token: tok})
				if err == nil {
					t.Fatal("Open succeeded against a 401")
				}
				for _, s := range []string{tok, stranger} {
					if strings.Contains(err.Error(), s) {
						t.Errorf("the error quotes %s: %v", s, err)
					}
				}
			})
		}
	}
}
