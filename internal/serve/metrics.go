package serve

import (
	"time"

	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/registry"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are what a Server exposes on /metrics. They live in a registry
// of their own, not the global default, so that tests can start several
// servers in one process and nothing a library registers globally leaks in.
type metrics struct {
	reg *prometheus.Registry

	runs        *prometheus.CounterVec // result: ok | partial | error
	duration    prometheus.Histogram
	updates     prometheus.Gauge
	pulls       *prometheus.CounterVec // action: opened | updated | closed
	regRequests *prometheus.CounterVec // host, kind
	regErrors   *prometheus.CounterVec // host
	regNotMod   *prometheus.CounterVec // host
	regCached   *prometheus.CounterVec // host
	lastRun     prometheus.Gauge
	skipped     prometheus.Counter
	inProgress  prometheus.Gauge
	dangling    prometheus.Gauge
	// Push hooks (hooks.go): requests by kind and result, and the time
	// from a notification to the pull request it opened or updated.
	hookRequests *prometheus.CounterVec
	hookToPR     prometheus.Histogram

	// danglingNow adds up the dangling references of the run going on,
	// so that the gauge moves once per run, not repository by repository.
	danglingNow int
	drift       *driftGauge // driftmetrics.go
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_runs_total",
			Help: "Finished runs by result: ok (exit 0), partial (exit 2: some lookups or pull requests failed), error (exit 1).",
		}, []string{"result"}),
		// Runs take from seconds (nothing new) to many minutes (large
		// repositories behind rate-limited registries): 1 s to ~34 min.
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "imagebot_run_duration_seconds",
			Help:    "Duration of a run over every served repository, fetch included.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 12),
		}),
		updates: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "imagebot_updates_found",
			Help: "Updates in the plans of the last finished run, over every served repository.",
		}),
		pulls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_pull_requests_total",
			Help: "Pull requests opened, updated or closed by imagebot.",
		}, []string{"action"}),
		regRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_registry_requests_total",
			Help: "HTTP requests sent to a registry host, retries included, by kind: ping, token, tags (pages of listings), manifestHead, manifestGet, blob, referrers, other.",
		}, []string{"host", "kind"}),
		regErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_registry_errors_total",
			Help: "Registry requests that failed on the network or with a status of 400 or above (401 challenges excepted).",
		}, []string{"host"}),
		regNotMod: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_registry_not_modified_total",
			Help: "Conditional registry requests answered 304 Not Modified (a cached listing confirmed).",
		}, []string{"host"}),
		regCached: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_registry_cache_answers_total",
			Help: "Answers taken from the --cache directory instead of a registry request (listings, digests, manifests, blobs).",
		}, []string{"host"}),
		lastRun: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "imagebot_last_run_timestamp_seconds",
			Help: "Unix time at which the last run finished, whatever its result.",
		}),
		skipped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "imagebot_runs_skipped_total",
			Help: "Scheduled runs skipped because the previous run was still going.",
		}),
		inProgress: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "imagebot_run_in_progress",
			Help: "1 while a run is going, else 0.",
		}),
		dangling: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "imagebot_dangling_references",
			Help: "References whose tag or pinned digest the registry no longer has, in the last finished run over every served repository: nodes without the image cached cannot start those workloads.",
		}),
		hookRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "imagebot_hook_requests_total",
			Help: "Push notifications by kind (generic, github, dockerhub, quay, harbor) and result: accepted, ping (GitHub's), unauthorized, too_large, bad_request, rate_limited when answered; unknown_image, not_served, lookup_failed, done once looked up.",
		}, []string{"kind", "result"}),
		// From a notification to its pull request: 50 ms to ~7 min.
		hookToPR: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "imagebot_hook_to_pr_seconds",
			Help:    "Time from a push notification's arrival to a pull request it opened or updated, per pull request.",
			Buckets: prometheus.ExponentialBuckets(0.05, 2, 14),
		}),
		drift: newDriftGauge(),
	}
	m.reg.MustRegister(m.hookRequests, m.hookToPR, m.drift.vec)
	m.reg.MustRegister(m.runs, m.duration, m.updates, m.pulls, m.regRequests, m.regErrors, m.regNotMod, m.regCached,
		m.lastRun, m.skipped, m.inProgress, m.dangling,
		// The usual process and Go runtime series, so that a dashboard can
		// tell a stuck bot from a leaking one.
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Every label value exists from the start: an alert on
	// increase(imagebot_runs_total{result="error"}[1d]) must see a 0 before
	// the first failure, not a missing series.
	for _, r := range []string{"ok", "partial", "error"} {
		m.runs.WithLabelValues(r)
	}
	for _, a := range []string{"opened", "updated", "closed"} {
		m.pulls.WithLabelValues(a)
	}
	return m
}

// repoDone adds what one repository's run did; its registry requests are
// counted by registryDone, once per run.
func (m *metrics) repoDone(s job.Summary) {
	m.pulls.WithLabelValues("opened").Add(float64(s.Opened))
	m.pulls.WithLabelValues("updated").Add(float64(s.Updated))
	m.pulls.WithLabelValues("closed").Add(float64(s.Closed))
	m.danglingNow += s.Dangling
	m.drift.repoDone(s)
}

// registryDone adds what a run cost the registries: its clients are
// fresh, so their HostStats are already the run's deltas.
func (m *metrics) registryDone(stats []registry.HostStats) {
	for _, h := range stats {
		for k, n := range h.ByKind() {
			if n > 0 {
				m.regRequests.WithLabelValues(h.Host, k).Add(float64(n))
			}
		}
		m.regErrors.WithLabelValues(h.Host).Add(float64(h.Errors))
		m.regNotMod.WithLabelValues(h.Host).Add(float64(h.NotModified))
		m.regCached.WithLabelValues(h.Host).Add(float64(h.FromCache))
	}
}

// runDone records a finished run over every served repository.
func (m *metrics) runDone(st Status, updates int, took time.Duration, end time.Time) {
	m.runs.WithLabelValues(st.String()).Inc()
	m.duration.Observe(took.Seconds())
	m.updates.Set(float64(updates))
	m.dangling.Set(float64(m.danglingNow))
	m.danglingNow = 0
	m.drift.runDone()
	m.lastRun.Set(float64(end.UnixNano()) / 1e9)
}
