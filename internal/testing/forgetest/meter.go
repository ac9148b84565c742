package forgetest

import (
	"net/http"
	"strings"
	"sync"
)

// Meter is the plumbing every fake host embeds: it counts the requests
// and the writes the fake says it served, and holds the faults a test
// queues for the requests to come. Which requests count (authenticated
// ones, API ones) and what a write is stay each fake's to say, as its
// host does; the counting and the queue are here once. Its methods are
// safe for concurrent use, and may be called with the fake's own lock
// held (a Meter takes no other lock).
type Meter struct {
	mu       sync.Mutex
	requests int
	writes   int
	faults   []Fault
}

// Fault is an answer queued for the next request that matches.
type Fault struct {
	Method string // the request's method, any case; "" for any
	Path   string // a substring of the path and query the fake matches; "" for any
	Status int
	Header http.Header // added to the answer
	Body   string      // the fake's own error body for Status when ""
}

// Requests counts the requests the fake served, as its documentation
// says which.
func (m *Meter) Requests() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests
}

// Writes counts the requests that asked to change something, as the
// fake's documentation says which: a rerun that should change nothing
// must not even try.
func (m *Meter) Writes() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.writes
}

// CountRequest counts one request, and one write too when write.
func (m *Meter) CountRequest(write bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.requests++
	if write {
		m.writes++
	}
}

// CountWrites adds n writes (a negative n takes back one counted too
// early, a change the host then refused as none).
func (m *Meter) CountWrites(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.writes += n
}

// QueueFault queues f: it fires once, on the first request after it
// that matches, faults in the order queued.
func (m *Meter) QueueFault(f Fault) {
	f.Header = f.Header.Clone()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.faults = append(m.faults, f)
}

// TakeFault returns, and unqueues, the first fault for a request with
// method whose target (the path and query, as the fake spells them)
// contains the fault's Path.
func (m *Meter) TakeFault(method, target string) (Fault, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, f := range m.faults {
		if (f.Method == "" || strings.EqualFold(f.Method, method)) && strings.Contains(target, f.Path) {
			m.faults = append(m.faults[:i], m.faults[i+1:]...)
			return f, true
		}
	}
	return Fault{}, false
}

// AddHeader sets the fault's headers on an answer, before its status is
// written.
func (f Fault) AddHeader(w http.ResponseWriter) {
	for k, v := range f.Header {
		w.Header()[k] = v
	}
}
