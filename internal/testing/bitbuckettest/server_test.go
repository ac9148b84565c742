package bitbuckettest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func get(t *testing.T, s *Server, path string, user, pass string) (*http.Response, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
	req.SetBasicAuth(user, pass)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp, body
}

// TestPagesAndQuery: pagelen is capped, next carries the query on, q
// filters, and what the fake does not understand is a 400, not a match.
func TestPagesAndQuery(t *testing.T) {
	s := New(WithPerPage(2))
	defer s.Close()
	s.AddRepo("acme", "app", "main")
	for _, b := range []string{"imagebot/a", "imagebot/b", "imagebot/c", "feature/x"} {
		s.OpenPR("acme/app", b, "main", b, HumanID, "")
	}
	q := url.Values{"q": {`source.branch.name ~ "imagebot/"`}, "pagelen": {"50"}}
	resp, body := get(t, s, "/2.0/repositories/acme/app/pullrequests?"+q.Encode(), BotEmail, DefaultToken)
	if resp.StatusCode != 200 || body["size"] != 3.0 || body["pagelen"] != 2.0 || len(body["values"].([]any)) != 2 {
		t.Fatalf("first page: %d %v", resp.StatusCode, body)
	}
	next, _ := url.Parse(body["next"].(string))
	if next.Query().Get("q") != q.Get("q") || next.Query().Get("page") != "2" {
		t.Fatalf("next %s does not carry the query on", next)
	}
	_, body = get(t, s, next.RequestURI(), BotEmail, DefaultToken)
	if len(body["values"].([]any)) != 1 || body["next"] != nil {
		t.Fatalf("last page: %v", body)
	}
	for _, bad := range []string{`source.branch.name = "a" OR id = "1"`, `(state = "OPEN")`, `title = unquoted`} {
		resp, _ := get(t, s, "/2.0/repositories/acme/app/pullrequests?"+url.Values{"q": {bad}}.Encode(), BotEmail, DefaultToken)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("q=%s: %d, want 400", bad, resp.StatusCode)
		}
	}
}

// TestAuth: the e-mail and token are both checked; a missing repository
// and a tracker that is off are 404s with Bitbucket's error body.
func TestAuth(t *testing.T) {
	s := New()
	defer s.Close()
	s.AddRepo("acme", "app", "main", WithIssuesOff())
	if resp, _ := get(t, s, "/2.0/user", "someone@example.com", DefaultToken); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong e-mail: %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(t, s, "/2.0/user", BotEmail, "app-password"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", resp.StatusCode)
	}
	resp, body := get(t, s, "/2.0/repositories/acme/gone", BotEmail, DefaultToken)
	if msg, _ := body["error"].(map[string]any)["message"].(string); resp.StatusCode != 404 || !strings.Contains(msg, "not found") {
		t.Errorf("missing repository: %d %v", resp.StatusCode, body)
	}
	if resp, _ := get(t, s, "/2.0/repositories/acme/app/issues", BotEmail, DefaultToken); resp.StatusCode != 404 {
		t.Errorf("issues off: %d, want 404", resp.StatusCode)
	}
}
