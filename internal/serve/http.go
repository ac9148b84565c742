package serve

import (
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves /healthz, /readyz, /metrics and, with Options.Hooks,
// POST /hooks/{kind}.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	// /healthz says the process serves; it never depends on registries or
	// GitHub, so an outage there does not get the pod restarted.
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/readyz", s.readyz)
	mux.Handle("/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{Registry: s.metrics.reg}))
	if s.o.Hooks.on() {
		mux.HandleFunc("POST /hooks/{kind}", s.hooks)
	}
	return mux
}

// readyz is 200 only when the last run finished OK.
func (s *Server) readyz(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	l := s.last
	s.mu.Unlock()
	switch {
	case !l.done:
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, "not ready: no run has finished yet\n")
	case l.status != OK:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "not ready: the last run (finished %s) exited with status %d (%s); see the logs\n",
			l.end.UTC().Format(time.RFC3339), int(l.status), l.status)
	default:
		fmt.Fprintf(w, "ready: the last run finished %s\n", l.end.UTC().Format(time.RFC3339))
	}
}
