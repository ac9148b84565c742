package drift_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/imagebot/imagebot/internal/drift"
)

// BenchmarkRunning10000Pods lists 10,000 running pods of 100 Deployments
// in pages of 500, as Kube does, and reports the heap that the result
// keeps (retained-B) next to what listing allocated in all (B/op): the
// pages are garbage once read, so memory is bounded by one page plus the
// few fields kept per container.
func BenchmarkRunning10000Pods(b *testing.B) {
	var objs []*corev1.Pod
	d := "sha256:" + strings.Repeat("ab", 32)
	for i := range 10000 {
		dep := fmt.Sprintf("app%d", i%100)
		objs = append(objs, pod("prod", fmt.Sprintf("%s-h-%d", dep, i), dep+"-h", "h",
			"ghcr.io/acme/"+dep+":1.0", "ghcr.io/acme/"+dep+"@"+d))
	}
	cs := fake.NewClientset()
	for i := range 100 {
		if err := cs.Tracker().Add(replicaSet("prod", fmt.Sprintf("app%d", i), "h")); err != nil {
			b.Fatal(err)
		}
	}
	pager(nil, cs, objs)
	b.ReportAllocs()
	var pods []drift.Pod
	for b.Loop() {
		var err error
		pods, _, err = (&drift.Kube{Client: cs}).Running(context.Background())
		if err != nil {
			b.Fatal(err)
		}
	}
	// What the result holds: the heap with it, less the heap without it.
	var with, without runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&with)
	runtime.KeepAlive(pods)
	pods = nil
	runtime.GC()
	runtime.ReadMemStats(&without)
	b.ReportMetric(float64(with.HeapAlloc)-float64(without.HeapAlloc), "retained-B")
}
