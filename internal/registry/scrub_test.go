package registry_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/registry"
	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

// TestErrorPagesQuotingCredentialsAreScrubbed: a registry (or a proxy in
// front of it) whose error page quotes the request's Authorization, or
// any token, puts no credential in the lookup's error (issue 25, item 2).
func TestErrorPagesQuotingCredentialsAreScrubbed(t *testing.T) {
	const user, pass = "bot", "Pa55-w0rd-quoted"
	const stranger = "glpat-Zq8xT3vW9yB2nK7mR4pL"
	basic := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	for _, format := range []string{"text", "json"} {
		t.Run(format, func(t *testing.T) {
			srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if _, _, ok := r.BasicAuth(); !ok {
					w.Header().Set("WWW-Authenticate", `Basic realm="r"`)
					w.WriteHeader(http.StatusUnauthorized)
					return
				}
				if r.URL.Path == "/v2/" {
					return
				}
				quote := fmt.Sprintf("denied GET %s Authorization: %s password=%s Private-Token: %s",
					r.URL.Path, r.Header.Get("Authorization"), pass, stranger)
				w.WriteHeader(http.StatusForbidden)
				if format == "json" {
					fmt.Fprintf(w, `{"errors":[{"code":"DENIED","message":%q}]}`, quote)
					return
				}
				fmt.Fprint(w, quote)
			})
			host := strings.TrimPrefix(srv.URL, "http://")
			c := newClient(registry.WithRetry(0, 0), registry.WithMirrors(map[string]string{"docker.io": srv.URL}),
				registry.WithCredentials(map[string]registry.Credentials{host: {Username: user, Password: pass}}))
			_, err := c.Tags(t.Context(), registrytest.Repo(t, "docker.io/acme/app"))
			if err == nil {
				t.Fatal("no error")
			}
			if srv.auths.Load() == 0 {
				t.Fatal("the credentials were never sent: the test proves nothing")
			}
			for _, s := range []string{pass, basic, stranger} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("the error quotes %q: %v", s, err)
				}
			}
			if !strings.Contains(err.Error(), "denied") {
				t.Errorf("the error %q lost the registry's message", err)
			}
		})
	}
}
