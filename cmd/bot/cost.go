package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/imagebot/imagebot/internal/chartrepo"
	"github.com/imagebot/imagebot/internal/plan"
	"github.com/imagebot/imagebot/internal/registry"
)

// hostCost is what a run cost one registry host, as the JSON plan carries
// it ("registry": [...]) and the log and the Actions summary show it.
type hostCost struct {
	Host     string `json:"host"`
	Requests int    `json:"requests"`
	// ByKind splits Requests: ping, token, tags (pages of listings),
	// manifestHead, manifestGet, blob, referrers, other. Every kind is
	// there, 0 or not, so that a consumer can rely on the keys.
	ByKind      map[string]int `json:"byKind"`
	NotModified int            `json:"notModified"` // 304 answers to conditional requests
	FromCache   int            `json:"fromCache"`   // answers taken from --cache instead
	Errors      int            `json:"errors"`
}

// runCost is what a command cost: the registries and the HTTP Helm
// repositories, each by host.
type runCost struct {
	registry []registry.HostStats
	charts   []chartrepo.HostStats
}

// chartHostCost is what a run cost one HTTP Helm repository host, as the
// JSON plan carries it ("chartRepositories": [...]).
type chartHostCost struct {
	Host     string `json:"host"`
	Requests int    `json:"requests"`
	// Indexes are the index.yaml files sent whole (200).
	Indexes     int `json:"indexes"`
	NotModified int `json:"notModified"` // 304 answers to conditional requests
	FromCache   int `json:"fromCache"`   // indexes taken from --cache without a request
	Errors      int `json:"errors"`
}

// writePlanCost prints the plan in format; the JSON plan carries the cost
// per registry host as "registry" and per chart repository host as
// "chartRepositories".
func writePlanCost(w io.Writer, p *plan.Plan, format string, verbose bool, cost runCost) error {
	if format != "json" {
		return writePlan(w, p, format, verbose)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // as writePlan: patterns read (?P<version>...)
	return enc.Encode(struct {
		*plan.Plan
		Registry []hostCost      `json:"registry"`
		Charts   []chartHostCost `json:"chartRepositories"`
	}{p, costOf(cost.registry), chartCostOf(cost.charts)})
}

// costOf is the cost per host, in the order of stats (by host); never nil,
// so that the JSON says [] rather than null.
func costOf(stats []registry.HostStats) []hostCost {
	out := make([]hostCost, 0, len(stats))
	for _, s := range stats {
		out = append(out, hostCost{Host: s.Host, Requests: s.Requests, ByKind: s.ByKind(),
			NotModified: s.NotModified, FromCache: s.FromCache, Errors: s.Errors})
	}
	return out
}

// chartCostOf is costOf for the chart repositories.
func chartCostOf(stats []chartrepo.HostStats) []chartHostCost {
	out := make([]chartHostCost, 0, len(stats))
	for _, s := range stats {
		out = append(out, chartHostCost{Host: s.Host, Requests: s.Requests, Indexes: s.Indexes,
			NotModified: s.NotModified, FromCache: s.FromCache, Errors: s.Errors})
	}
	return out
}

// costMarkdown is the cost as tables for the Actions step summary: the
// registries', with a column for each kind of request some host was
// sent, then the chart repositories'.
func costMarkdown(cost runCost) string {
	return registryMarkdown(cost.registry) + chartCostMarkdown(cost.charts)
}

// chartCostMarkdown is the chart repositories' table, "" without one.
func chartCostMarkdown(stats []chartrepo.HostStats) string {
	if len(stats) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n#### Chart repository requests\n\n| Host | Requests | Indexes | 304 | From cache | Errors |\n|---|---:|---:|---:|---:|---:|\n")
	for _, s := range stats {
		fmt.Fprintf(&b, "| `%s` | %d | %d | %d | %d | %d |\n", s.Host, s.Requests, s.Indexes, s.NotModified, s.FromCache, s.Errors)
	}
	return b.String()
}

// registryMarkdown is the registries' table, "" without one.
func registryMarkdown(stats []registry.HostStats) string {
	if len(stats) == 0 {
		return ""
	}
	var cols []string
	for _, k := range registry.Kinds {
		for _, s := range stats {
			if s.ByKind()[k] > 0 {
				cols = append(cols, k)
				break
			}
		}
	}
	var b strings.Builder
	b.WriteString("\n#### Registry requests\n\n| Host | Requests |")
	for _, k := range cols {
		b.WriteString(" " + k + " |")
	}
	b.WriteString(" 304 | From cache | Errors |\n|---|---:|" + strings.Repeat("---:|", len(cols)+3) + "\n")
	for _, s := range stats {
		fmt.Fprintf(&b, "| `%s` | %d |", s.Host, s.Requests)
		by := s.ByKind()
		for _, k := range cols {
			fmt.Fprintf(&b, " %d |", by[k])
		}
		fmt.Fprintf(&b, " %d | %d | %d |\n", s.NotModified, s.FromCache, s.Errors)
	}
	return b.String()
}
