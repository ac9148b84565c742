package registrytest_test

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/testing/registrytest"
)

func get(t *testing.T, method, url string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestETags: listings and manifests carry ETags, a request naming the
// current one gets 304 with no body, and a push changes the listing's.
func TestETags(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithETags())
	img := registrytest.Image(t, "a", time.Time{}, nil)
	digest := srv.Push(t, "acme/api", "1.0.0", img)
	list := srv.URL() + "/v2/acme/api/tags/list"

	resp, _ := get(t, http.MethodGet, list, nil)
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("tags/list: %d, ETag %q; want 200 with an ETag", resp.StatusCode, etag)
	}
	resp, body := get(t, http.MethodGet, list, http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusNotModified || body != "" || resp.Header.Get("ETag") != etag {
		t.Errorf("conditional tags/list: %d %q, ETag %q; want 304, no body, the same ETag", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	srv.Push(t, "acme/api", "1.1.0", img)
	resp, body = get(t, http.MethodGet, list, http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag || body == "" {
		t.Errorf("after a push: %d, ETag %q; want 200 with a new ETag", resp.StatusCode, resp.Header.Get("ETag"))
	}

	manifest := srv.URL() + "/v2/acme/api/manifests/1.0.0"
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		resp, _ := get(t, m, manifest, http.Header{"If-None-Match": {`"` + digest + `"`}})
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s manifest naming its digest: %d, want 304", m, resp.StatusCode)
		}
		resp, _ = get(t, m, manifest, http.Header{"If-None-Match": {`"sha256:0000"`}})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != `"`+digest+`"` {
			t.Errorf("%s manifest naming another ETag: %d, ETag %q; want 200 and \"%s\"", m, resp.StatusCode, resp.Header.Get("ETag"), digest)
		}
	}

	// Without WithETags the server sends no validators, as pkg/registry.
	plain := registrytest.NewServer(t)
	plain.Push(t, "acme/api", "1.0.0", img)
	resp, _ = get(t, http.MethodGet, plain.URL()+"/v2/acme/api/tags/list", http.Header{"If-None-Match": {etag}})
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != "" {
		t.Errorf("plain server: %d, ETag %q; want 200 and none", resp.StatusCode, resp.Header.Get("ETag"))
	}
}

// TestLastModified: a listing carries the time of the repository's last
// push, and If-Modified-Since at or after it gets 304.
func TestLastModified(t *testing.T) {
	srv := registrytest.NewServer(t, registrytest.WithLastModified())
	srv.Push(t, "acme/api", "1.0.0", registrytest.Image(t, "a", time.Time{}, nil))
	list := srv.URL() + "/v2/acme/api/tags/list"
	resp, _ := get(t, http.MethodGet, list, nil)
	lm, err := http.ParseTime(resp.Header.Get("Last-Modified"))
	if err != nil {
		t.Fatalf("Last-Modified %q: %v", resp.Header.Get("Last-Modified"), err)
	}
	if resp, _ := get(t, http.MethodGet, list, http.Header{"If-Modified-Since": {lm.Format(http.TimeFormat)}}); resp.StatusCode != http.StatusNotModified {
		t.Errorf("If-Modified-Since its Last-Modified: %d, want 304", resp.StatusCode)
	}
	before := lm.Add(-time.Second).Format(http.TimeFormat)
	if resp, _ := get(t, http.MethodGet, list, http.Header{"If-Modified-Since": {before}}); resp.StatusCode != http.StatusOK {
		t.Errorf("If-Modified-Since a second earlier: %d, want 200", resp.StatusCode)
	}
}
