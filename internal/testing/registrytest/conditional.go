package registrytest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"
)

// WithETags makes the server answer conditional requests as registries
// with HTTP caching do (Harbor, GHCR, distribution behind a CDN): every
// tags/list page carries a strong ETag over its body, every manifest GET
// and HEAD the ETag "<digest>" that distribution sends, and a request
// whose If-None-Match names the current ETag gets 304 Not Modified with no
// body. Without it the server sends no validators, as pkg/registry does,
// and a client cache can only refetch.
func WithETags() Option { return func(s *Server) { s.etags = true } }

// WithLastModified makes every tags/list page carry Last-Modified: the
// last time a manifest was pushed to the repository, to the second, as
// HTTP dates are. A request whose If-Modified-Since is not before it gets
// 304 Not Modified.
func WithLastModified() Option { return func(s *Server) { s.lastModified = true } }

// conditional reports whether r is answered by serveConditional.
func (s *Server) conditional(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/tags/list"):
		return s.etags || s.lastModified
	case strings.Contains(r.URL.Path, "/manifests/"):
		return s.etags
	}
	return false
}

// serveConditional records what next would answer, adds validators and
// answers 304 when the request's own validators still hold.
func (s *Server) serveConditional(w http.ResponseWriter, r *http.Request, next func(http.ResponseWriter, *http.Request)) {
	rec := httptest.NewRecorder()
	next(rec, r)
	h := rec.Header()
	if rec.Code == http.StatusOK {
		tags := strings.HasSuffix(r.URL.Path, "/tags/list")
		if s.etags {
			etag := `"` + h.Get("Docker-Content-Digest") + `"`
			if tags {
				sum := sha256.Sum256(rec.Body.Bytes())
				etag = `"` + hex.EncodeToString(sum[:16]) + `"`
			}
			h.Set("ETag", etag)
		}
		var modified time.Time
		if s.lastModified && tags {
			modified = s.modifiedAt(repoOf(r.URL.Path))
			h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
		}
		if notModified(r, h.Get("ETag"), modified) {
			for _, k := range []string{"Content-Length", "Content-Type"} {
				h.Del(k)
			}
			copyHeader(w.Header(), h)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	copyHeader(w.Header(), h)
	w.WriteHeader(rec.Code)
	if r.Method != http.MethodHead {
		w.Write(rec.Body.Bytes())
	}
}

// notModified evaluates If-None-Match, then (only without it, as RFC 9110
// says) If-Modified-Since.
func notModified(r *http.Request, etag string, modified time.Time) bool {
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if etag == "" {
			return false
		}
		for v := range strings.SplitSeq(inm, ",") {
			if v = strings.TrimSpace(v); v == etag || v == "*" {
				return true
			}
		}
		return false
	}
	ims, err := http.ParseTime(r.Header.Get("If-Modified-Since"))
	return err == nil && !modified.IsZero() && !modified.Truncate(time.Second).After(ims)
}

func copyHeader(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
}

// touch records that a manifest was pushed to repo now.
func (s *Server) touch(repo string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modified == nil {
		s.modified = map[string]time.Time{}
	}
	s.modified[repo] = time.Now()
}

func (s *Server) modifiedAt(repo string) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modified[repo]
}
