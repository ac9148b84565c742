package registrytest

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Fault is a way a registry misbehaves beyond answering an error status.
type Fault int

const (
	failStatus Fault = iota // Fail: an error status

	// Hang accepts the request and never answers, until the client gives
	// up or the server closes: a registry behind a dead backend.
	Hang
	// Stall sends the headers and the start of a body, then nothing more.
	Stall
	// Reset closes the connection without answering.
	Reset
	// HugeBody answers with a 256 MiB tags list: a valid JSON prefix
	// streamed for as long as the client reads, then cut short.
	HugeBody
	// SelfLink answers tags/list pages whose Link header points to the
	// page itself.
	SelfLink
	// RepeatPages answers every tags/list request with the first page and
	// a Link to a URL never asked before, as a registry ignoring ?last=.
	RepeatPages
)

type fault struct {
	kind    Fault
	match   string
	status  int
	left    int // requests still to fail, unless forever
	forever bool
	header  http.Header
	longer  int // only requests whose request line is over longer bytes
}

// Fail answers the next times requests matching pathSubstring with status
// and header instead of serving them (times <= 0: all of them). The
// substring is matched against the path and against "METHOD path", so
// Fail("HEAD /v2/", 405, 0, nil) refuses HEAD only.
func (s *Server) Fail(pathSubstring string, status int, times int, header http.Header) {
	s.addFault(&fault{kind: failStatus, match: pathSubstring, status: status, left: times, header: header.Clone()})
}

// Break makes the next times requests matching pathSubstring (as for
// Fail; times <= 0: all of them) misbehave as f says. Faults on tags/list
// bodies (HugeBody, SelfLink, RepeatPages) apply after authentication, the
// others before.
func (s *Server) Break(pathSubstring string, f Fault, times int) {
	s.addFault(&fault{kind: f, match: pathSubstring, left: times})
}

// FailLong answers every request matching pathSubstring (as for Fail)
// whose request line is over n bytes with status: a front that answers
// 502 or 500 rather than 414 to a token request it finds too long.
func (s *Server) FailLong(pathSubstring string, n, status int) {
	s.addFault(&fault{kind: failStatus, match: pathSubstring, status: status, longer: n})
}

// BreakLong makes every request matching pathSubstring (as for Fail)
// whose request line is over n bytes misbehave as f says: a front that
// resets the connection, or never answers, rather than answering 414.
func (s *Server) BreakLong(pathSubstring string, n int, f Fault) {
	s.addFault(&fault{kind: f, match: pathSubstring, longer: n})
}

func (s *Server) addFault(f *fault) {
	f.forever = f.left <= 0
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, f)
}

func writeFault(w http.ResponseWriter, r *http.Request, f *fault) {
	for k, vs := range f.header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	writeError(w, r, f.status, "UNAVAILABLE", "injected by registrytest")
}

// serveBroken answers r as f says.
func (s *Server) serveBroken(w http.ResponseWriter, r *http.Request, f *fault) {
	switch f.kind {
	case Hang:
		<-r.Context().Done()
	case Stall:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `{"name":"stalled","tags":["1.0.0",`)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	case Reset:
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	case HugeBody:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, `{"name":"huge","tags":[`)
		chunk := []byte(strings.Repeat(`"9.9.9-padding-padding-padding",`, 1024))
		for sent := 0; sent < 256<<20; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	case SelfLink:
		s.servePage(w, r, r.URL.Query().Get("last"), r.URL.RequestURI())
	case RepeatPages:
		// Always the first page; the link is new every time (?page=k+1).
		k, _ := strconv.Atoi(r.URL.Query().Get("page"))
		next := url.Values{"page": {strconv.Itoa(k + 1)}}
		s.servePage(w, r, "", r.URL.Path+"?"+next.Encode())
	default:
		http.Error(w, "registrytest: unknown fault", http.StatusInternalServerError)
	}
}
