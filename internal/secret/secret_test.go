package secret_test

import (
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/secret"
)

func TestScrub(t *testing.T) {
	tests := []struct {
		in      string
		secrets []string
		gone    []string // must not be in the output
		kept    []string // must still be
	}{
		{in: "401 Unauthorized: request was GET /user\nAuthorization: Bearer ghs_16C7e42F292c6912E7710c838347Ae178B4a\nAccept: */*",
			gone: []string{"ghs_16C7e42F292c6912E7710c838347Ae178B4a"}, kept: []string{"Authorization: Bearer ***", "Accept: */*"}},
		{in: `{"message":"bad request","request_headers":{"Private-Token":"glpat-xxxxxxxxxxxxxxxxxxxx"}}`,
			gone: []string{"glpat-xxxxxxxxxxxxxxxxxxxx"}, kept: []string{`"message":"bad request"`}},
		{in: "PRIVATE-TOKEN: s3cr3t-value", gone: []string{"s3cr3t-value"}},
		{in: "authorization: token 0123456789abcdef0123456789abcdef01234567", gone: []string{"0123456789abcdef"}},
		{in: "echo: the token was abcd1234efgh", secrets: []string{"abcd1234efgh"}, gone: []string{"abcd1234efgh"}},
		{in: "a github_pat_11ABCDEFG0123456789_abcdefghijklmnop and ghp_abcdefghijklmnopqrstuvwx in prose",
			gone: []string{"github_pat_11ABCDEFG", "ghp_abcdefghijklmnopqrstuvwx"}, kept: []string{"in prose"}},
		{in: "jwt eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiIxMjMifQ.c2lnbmF0dXJl here", gone: []string{"eyJpc3MiOiIxMjMifQ"}, kept: []string{"here"}},
		{in: "clone https://x-access-token:hunter22@github.com/o/r failed", gone: []string{"hunter22"},
			kept: []string{"https://x-access-token:***@github.com/o/r"}},
		{in: "GET /api?private_token=abc123xyz&page=2", gone: []string{"abc123xyz"}, kept: []string{"page=2"}},
		{in: `{"token":"abcdef123456","password": "hunter2hunter2"}`, gone: []string{"abcdef123456", "hunter2hunter2"}},
		// Ordinary messages are left alone: prose, commit hashes,
		// challenges.
		{in: "GitHub rejected the token: 401; the password: none given", kept: []string{"the token: 401", "password: none given"}},
		{in: `commit 0123456789abcdef0123456789abcdef01234567 is not on main; WWW-Authenticate: Bearer realm="https://auth.example/token",service="r"`,
			kept: []string{"0123456789abcdef0123456789abcdef01234567", `Bearer realm="https://auth.example/token"`}},
	}
	for _, tc := range tests {
		got := secret.Scrub(tc.in, tc.secrets...)
		for _, g := range tc.gone {
			if strings.Contains(got, g) {
				t.Errorf("Scrub(%q) = %q, still has %q", tc.in, got, g)
			}
		}
		for _, k := range tc.kept {
			if !strings.Contains(got, k) {
				t.Errorf("Scrub(%q) = %q, lost %q", tc.in, got, k)
			}
		}
	}
}

type statusErr struct{ code int }

func (e *statusErr) Error() string {
	return fmt.Sprintf("HTTP %d: Private-Token: glpat-abcdefghijklmnopqrstu", e.code)
}

func TestErrorKeepsItsKind(t *testing.T) {
	err := secret.Error(fmt.Errorf("list merge requests: %w", &statusErr{403}))
	if strings.Contains(err.Error(), "glpat-") {
		t.Errorf("Error() = %q, still has the token", err)
	}
	var se *statusErr
	if !errors.As(err, &se) || se.code != 403 {
		t.Errorf("errors.As lost the status: %v", err)
	}
	plain := errors.New("nothing secret")
	if secret.Error(plain) != plain || secret.Error(nil) != nil {
		t.Error("an error with nothing to scrub was replaced")
	}
}

func TestCheckRedirect(t *testing.T) {
	req := func(s string) *http.Request {
		u, _ := url.Parse(s)
		return &http.Request{URL: u}
	}
	first := req("https://api.example.com/repos/o/r")
	tests := []struct {
		to     string
		refuse bool
	}{
		{"https://api.example.com/repositories/42", false},
		{"https://API.example.com:443/x", false},
		{"http://api.example.com/x", true},
		{"https://api.example.com:8443/x", true},
		{"https://evil.example.com/x", true},
		{"https://sub.api.example.com/x", true},
	}
	for _, tc := range tests {
		err := secret.CheckRedirect(req(tc.to), []*http.Request{first})
		var re *secret.RedirectError
		if got := errors.As(err, &re); got != tc.refuse {
			t.Errorf("redirect to %s: %v, want refused %t", tc.to, err, tc.refuse)
		}
		if tc.refuse && !strings.Contains(err.Error(), "refusing a redirect from https://api.example.com:443 to") {
			t.Errorf("redirect to %s: %q does not say what was refused", tc.to, err)
		}
	}
}

// TestTransportScrubsEscapedAndCompressedBodies: a token quoted in JSON
// with escapes, or in a gzip body the caller asked for, is scrubbed too.
func TestTransportScrubsEscapedAndCompressedBodies(t *testing.T) {
	const tok = "5f0c2d9e8b7a6f5e4d3c2b1a0f9e8d7c6b5a4f3e"
	escaped := `{"message":"denied: \u0074oken ` + tok[:4] + fmt.Sprintf(`\u%04x`, tok[4]) + tok[5:] + `"}`
	for name, tc := range map[string]struct {
		body string
		gzip bool
	}{
		"escaped JSON": {body: escaped},
		"gzip":         {body: "Authorization: token " + tok, gzip: true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.gzip {
					w.Header().Set("Content-Encoding", "gzip")
				}
				w.WriteHeader(http.StatusForbidden)
				if tc.gzip {
					zw := gzip.NewWriter(w)
					io.WriteString(zw, tc.body)
					zw.Close()
					return
				}
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
			req.Header.Set("Authorization", "token "+tok)
			if tc.gzip {
				req.Header.Set("Accept-Encoding", "gzip")
			}
			resp, err := secret.Transport(nil).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			var r io.Reader = resp.Body
			if resp.Header.Get("Content-Encoding") == "gzip" {
				r, _ = gzip.NewReader(resp.Body)
			}
			b, _ := io.ReadAll(r)
			if strings.Contains(string(b), tok) || strings.Contains(string(b), tok[5:]) {
				t.Errorf("body %q still has the token", b)
			}
		})
	}
}
