package chartrepo

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// BenchmarkIndexMemory (issue 25 item 9) states what parsing an index
// costs per MiB of it: the peak heap while parsing, less the heap before
// (the index's bytes), and the heap the parsed index keeps, per version
// kept. The indexes are laid out as `helm repo index` writes them, with
// the description, maintainers, keywords and annotations real charts
// carry and a serverInfo part, up to the 64 MiB cap:
//
//   - 250 charts of 24 MiB, one of them named (a plan names a few charts
//     of a big repository), or every one (Versions without Expect);
//   - one chart of 60 MiB, named: every version is kept, the worst case.
//
// The deploy manifests give imagebot 512 MiB: the benchmark fails when a
// parse peaks over 256 MiB, which leaves room for the rest of a run.
//
//	go test ./internal/chartrepo -run '^$' -bench IndexMemory -benchtime 1x
func BenchmarkIndexMemory(b *testing.B) {
	tests := []struct {
		name             string
		charts, versions int
		only             map[string]bool
		extra            int // versions of a chart under a top-level key other than entries
	}{
		{"14MiB/outside-entries/one-named", 10, 100, map[string]bool{"chart7": true}, 12000},
		{"24MiB/250-charts/one-named", 250, 100, map[string]bool{"chart7": true}, 0},
		{"24MiB/250-charts/all", 250, 100, nil, 0},
		{"60MiB/one-chart/named", 1, 63000, map[string]bool{"chart0": true}, 0},
	}
	for _, tc := range tests {
		b.Run(tc.name, func(b *testing.B) {
			benchParse(b, func() []byte { return helmIndex(tc.charts, tc.versions, tc.extra) }, tc.only, true)
		})
	}
	// The same as JSON (`helm repo index --json`), outside entries included.
	for _, tc := range tests[:2] {
		b.Run(tc.name+"/json", func(b *testing.B) {
			benchParse(b, func() []byte {
				doc, err := yaml.YAMLToJSON(helmIndex(tc.charts, tc.versions, tc.extra))
				if err != nil {
					b.Fatal(err)
				}
				return doc
			}, tc.only, true)
		})
	}
}

// BenchmarkIndexHostile is BenchmarkIndexMemory for the indexes that cost
// the most per byte, each up to the 64 MiB cap and its one chart named:
// versions of a few bytes each (kept up to maxVersions, then refused), a
// chart name per line, one line of 64 MiB, a chart in flow style up to
// what is decoded whole.
//
//	go test ./internal/chartrepo -run '^$' -bench IndexHostile -benchtime 1x
func BenchmarkIndexHostile(b *testing.B) {
	const size = 64<<20 - 1024
	tiny := func() []byte {
		buf := bytes.NewBufferString("apiVersion: v1\nentries:\n  a:\n")
		for i := 0; buf.Len() < size; i++ {
			fmt.Fprintf(buf, "  - version: %d.%d.%d\n", i/1000000, i/1000%1000, i%1000)
		}
		return buf.Bytes()
	}
	names := func() []byte {
		buf := bytes.NewBufferString("apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\n")
		for i := 0; buf.Len() < size; i++ {
			fmt.Fprintf(buf, "  c%d: []\n", i)
		}
		return buf.Bytes()
	}
	line := func() []byte {
		buf := bytes.NewBufferString("apiVersion: v1\nentries:\n  a:\n  - version: 1.0.0\nhuge: ")
		buf.WriteString(strings.Repeat("x", size-buf.Len()-1))
		buf.WriteString("\n")
		return buf.Bytes()
	}
	flow := func() []byte {
		buf := bytes.NewBufferString("apiVersion: v1\nentries:\n  a: [")
		for i := 0; buf.Len() < maxWholeBytes-100; i++ {
			fmt.Fprintf(buf, "{version: 1.0.%d, appVersion: x, description: a chart as long as most are},\n    ", i)
		}
		buf.WriteString("]\n")
		return buf.Bytes()
	}
	jsonEntry := func() []byte {
		buf := bytes.NewBufferString(`{"apiVersion":"v1","entries":{"a":[{"version":"1.0.0","description":"`)
		buf.WriteString(strings.Repeat("x", size-buf.Len()-10))
		buf.WriteString(`"}]}}`)
		return buf.Bytes()
	}
	jsonOutside := func() []byte {
		buf := bytes.NewBufferString(`{"apiVersion":"v1","entries":{"a":[{"version":"1.0.0"}]},"x":[[["`)
		buf.WriteString(strings.Repeat("x", size-buf.Len()-10))
		buf.WriteString(`"]]]}`)
		return buf.Bytes()
	}
	for _, tc := range []struct {
		name string
		doc  func() []byte
		ok   bool
	}{
		{"json-one-entry", jsonEntry, true},
		{"json-outside-entries", jsonOutside, true},
		{"tiny-versions", tiny, false},
		{"chart-names", names, true},
		{"one-line", line, true},
		{"flow-chart", flow, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchParse(b, tc.doc, map[string]bool{"a": true}, tc.ok)
		})
	}
}

// benchParse parses doc keeping only, and reports what it cost; ok says
// whether doc is an index imagebot reads, or one it refuses. gen makes
// doc, which is read
// from a file, as a Client reads an answer: its bytes are not in the heap,
// which would double the collector's goal and so the peak.
func benchParse(b *testing.B, gen func() []byte, only map[string]bool, ok bool) {
	doc := gen()
	mib := float64(len(doc)) / (1 << 20)
	file := filepath.Join(b.TempDir(), "index.yaml")
	if err := os.WriteFile(file, doc, 0o600); err != nil {
		b.Fatal(err)
	}
	doc = nil
	runtime.GC()
	var base runtime.MemStats
	runtime.ReadMemStats(&base)
	var peak atomic.Uint64
	stop := sampleHeap(&peak)
	var x *index
	start := time.Now()
	for b.Loop() {
		f, err := os.Open(file)
		if err != nil {
			b.Fatal(err)
		}
		x, err = parse(f, only)
		f.Close()
		if (err == nil) != ok {
			b.Fatalf("err = %v, want ok = %v", err, ok)
		}
	}
	elapsed := time.Since(start) / time.Duration(b.N)
	stop()
	runtime.GC()
	var live runtime.MemStats
	runtime.ReadMemStats(&live)
	kept := 0
	if x != nil {
		for _, vs := range x.charts {
			kept += len(vs)
		}
	}
	runtime.KeepAlive(x)
	peakMiB := float64(peak.Load()-min(peak.Load(), base.HeapAlloc)) / (1 << 20)
	b.ReportMetric(mib, "index-MiB")
	b.ReportMetric(peakMiB, "peak-heap-MiB")
	b.ReportMetric(peakMiB/mib, "peak-heap-MiB/index-MiB")
	b.ReportMetric(float64(elapsed.Milliseconds())/mib, "ms/index-MiB")
	if kept > 0 {
		b.ReportMetric(float64(live.HeapAlloc-min(live.HeapAlloc, base.HeapAlloc))/float64(kept), "kept-B/version")
	}
	if peakMiB > 256 {
		b.Errorf("parsing %.0f MiB peaked at %.0f MiB of heap, over 256 MiB", mib, peakMiB)
	}
}

// helmIndex is an index of charts × versions in Helm's layout; extra
// versions more are under another top-level key (as a mirror's or a
// server's own listing would be), which nothing reads.
func helmIndex(charts, versions, extra int) []byte {
	var buf bytes.Buffer
	if extra > 0 {
		buf.WriteString("mirrored:\n")
		helmEntries(&buf, 1, extra)
	}
	buf.WriteString("apiVersion: v1\nentries:\n")
	helmEntries(&buf, charts, versions)
	buf.WriteString("generated: \"2024-01-02T03:04:05Z\"\nserverInfo:\n  contextPath: /v1\n")
	return buf.Bytes()
}

func helmEntries(buf *bytes.Buffer, charts, versions int) {
	for c := range charts {
		fmt.Fprintf(buf, "  chart%d:\n", c)
		for v := range versions {
			fmt.Fprintf(buf, `  - annotations:
      artifacthub.io/changes: |
        - kind: changed
          description: Bump the image to %[2]d.%[3]d.0
      artifacthub.io/license: Apache-2.0
    apiVersion: v2
    appVersion: %[2]d.%[3]d.0
    created: "2024-01-02T03:04:05.123456789Z"
    dependencies:
    - name: common
      repository: oci://registry-1.docker.io/bitnamicharts
      tags:
      - bitnami-common
      version: 2.x.x
    description: A chart for benchmarks, with a description as long as most descriptions are, or a little longer than that.
    digest: 4c1f2a3b5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7%04[4]x
    home: https://example.com/chart%[1]d
    icon: https://example.com/chart%[1]d/icon.svg
    keywords:
    - benchmark
    - chart
    maintainers:
    - name: Example Maintainers
      url: https://example.com/maintainers
    name: chart%[1]d
    sources:
    - https://github.com/example/chart%[1]d
    type: application
    urls:
    - https://example.com/charts/chart%[1]d-%[2]d.%[3]d.%[4]d.tgz
    version: %[2]d.%[3]d.%[4]d
`, c, v/100, v%100, v%10000)
		}
	}
}

// sampleHeap records the largest heap in use every millisecond until the
// returned stop is called.
func sampleHeap(peak *atomic.Uint64) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		var m runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > peak.Load() {
				peak.Store(m.HeapAlloc)
			}
		}
	}()
	return func() { close(done); <-finished }
}
