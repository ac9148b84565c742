package gitops_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops"
	"github.com/imagebot/imagebot/internal/gitops/forge/azure"
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
	// Bitbucket's API tokens and HTTP access tokens, and an Azure DevOps
	// PAT (52 characters of base32).
	gitops.Bitbucket:       "ATATT3xFfGF0T4kz9Qm2Lw8Vn6Rb1Yc5Hd7Jp3Se0Ug2Ki4Ol6Nq8",
	gitops.BitbucketServer: "BBDC-MzQ1Njc4OTAxMjM0OnRva2VuLXZhbHVlLWZvci10ZXN0cw",
	azure.Kind:             "qz7x4m2k9w3v8b5n6c1d0f4g7h2j5k8l3p6r9t2y5u8i1o4e7a0s",
}

// redirectKinds are the hosts whose API clients the redirect and error
// page tests drive: every driver.
var redirectKinds = []gitops.Kind{gitops.GitHub, gitops.GitLab, gitops.Gitea, gitops.Bitbucket, gitops.BitbucketServer, azure.Kind}

// openAt is the options that open a repository of kind's shape at api
// with tok: Azure DevOps wants a collection (a path) and Project/repo,
// Bitbucket Cloud the account's e-mail beside its token.
func openAt(kind gitops.Kind, api, tok string) gitops.Options {
	o := gitops.Options{Forge: kind, APIURL: api, Repository: "acme/app", Token: tok}
	switch kind {
	case azure.Kind:
		o.APIURL, o.Repository = api+"/acme", "Web/app"
	case gitops.Bitbucket:
		o.User = "bot@acme.example"
	}
	return o
}

// TestTokensNeverFollowRedirects: an API answering with a redirect to
// another port of the same host, or to another host, never gets the
// token there: the request is refused, without a request to the other
// host, and the error says why (issue 25, item 1).
func TestTokensNeverFollowRedirects(t *testing.T) {
	for _, kind := range redirectKinds {
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
				_, err := gitops.Open(t.Context(), openAt(kind, api.URL, tok))
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
	for _, kind := range redirectKinds {
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
				o := openAt(kind, api.URL, tok)
				_, err := gitops.Open(t.Context(), o)
				if err == nil {
					t.Fatal("Open succeeded against a 401")
				}
				basic := base64.StdEncoding.EncodeToString([]byte(o.User + ":" + tok))
				for _, s := range []string{tok, stranger, basic} {
					if strings.Contains(err.Error(), s) {
						t.Errorf("the error quotes %s: %v", s, err)
					}
				}
			})
		}
	}
}
