package job

import (
	"github.com/imagebot/imagebot/internal/chartrepo"
	"log/slog"

	"github.com/imagebot/imagebot/internal/registry"
)

// logCost ends a command's log with one line per registry host: what it
// cost, by kind, the kinds with no request left out.
func logCost(log *slog.Logger, stats []registry.HostStats) {
	for _, s := range stats {
		attrs := []any{"host", s.Host, "requests", s.Requests}
		by := s.ByKind()
		for _, k := range registry.Kinds {
			if by[k] > 0 {
				attrs = append(attrs, k, by[k])
			}
		}
		if s.NotModified > 0 {
			attrs = append(attrs, "notModified", s.NotModified)
		}
		if s.FromCache > 0 {
			attrs = append(attrs, "fromCache", s.FromCache)
		}
		attrs = append(attrs, "errors", s.Errors)
		log.Info("registry requests", attrs...)
	}
}

// logChartCost is logCost for the HTTP Helm repositories: one line per
// host, with the indexes sent whole, revalidated (304) and taken from the
// cache, so that "one index.yaml fetch per repository per run" can be read
// off the log.
func logChartCost(log *slog.Logger, stats []chartrepo.HostStats) {
	for _, s := range stats {
		attrs := []any{"host", s.Host, "requests", s.Requests, "indexes", s.Indexes}
		if s.NotModified > 0 {
			attrs = append(attrs, "notModified", s.NotModified)
		}
		if s.FromCache > 0 {
			attrs = append(attrs, "fromCache", s.FromCache)
		}
		attrs = append(attrs, "errors", s.Errors)
		log.Info("chart repository requests", attrs...)
	}
}
