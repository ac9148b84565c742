package forgetest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMount(t *testing.T) {
	h := Mount("/gitlab/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/gitlab/api/v4/user", 200, "/api/v4/user"},
		{"/api/v4/user", 404, ""},
		{"/gitlabx/api", 404, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Code != tc.status || (tc.body != "" && rec.Body.String() != tc.body) {
			t.Errorf("%s: %d %q, want %d %q", tc.path, rec.Code, rec.Body.String(), tc.status, tc.body)
		}
	}
}
