package azuretest

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
)

// TestAnswers: what the driver never provokes, checked directly: no
// api-version is a 400, no credentials the sign-in page (203), a PAT sent
// as Bearer a 401, refs page by continuation token.
func TestAnswers(t *testing.T) {
	s := New(WithRefPage(1))
	defer s.Close()
	s.SetBranch("x", strings.Repeat("1", 40))
	get := func(path, auth string) *http.Response {
		req, _ := http.NewRequest("GET", s.URL()+"/"+strings.ReplaceAll(Project, " ", "%20")+"/_apis/git/repositories/"+Repo+path, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+DefaultToken))
	for _, tc := range []struct {
		path, auth string
		status     int
		token      bool
	}{
		{"?api-version=7.1", basic, 200, false},
		{"", basic, 400, false},
		{"?api-version=7.1", "", 203, false},
		{"?api-version=7.1", "Basic " + base64.StdEncoding.EncodeToString([]byte(":"+ExpiredToken)), 203, false},
		{"?api-version=7.1", "Bearer " + DefaultToken, 401, false},
		{"?api-version=7.1", "Bearer " + PipelineToken, 200, false},
		{"/refs?api-version=7.1&filter=heads/", basic, 200, true},
	} {
		resp := get(tc.path, tc.auth)
		if resp.StatusCode != tc.status || (resp.Header.Get("x-ms-continuationtoken") != "") != tc.token {
			t.Errorf("%s %.12s: %d, token %q", tc.path, tc.auth, resp.StatusCode, resp.Header.Get("x-ms-continuationtoken"))
		}
	}
}
