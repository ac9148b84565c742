package drift_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/imagebot/imagebot/internal/drift"
	"github.com/imagebot/imagebot/internal/testing/kubetest"
)

// BenchmarkRunning10000Pods lists 10,000 running pods of 100 Deployments
// in pages of 500, each page decoded from JSON as client-go decodes an API
// server's answer (so that every string is the page's own), and reports
// the heap that the result keeps (retained-B) next to what listing
// allocated in all (B/op): the pages are garbage once read, so memory is
// bounded by one page plus the few fields kept per container.
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
	decodingPager(b, cs, objs)
	b.ReportAllocs()
	var pods []drift.Pod
	for b.Loop() {
		var err error
		pods, _, err = (&drift.Kube{Client: kubetest.Clientset(cs)}).Running(context.Background())
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

// decodingPager answers pod lists in pages of limit decoded from JSON.
func decodingPager(b *testing.B, cs *fake.Clientset, pods []*corev1.Pod) {
	raw := make([][]byte, len(pods))
	for i, p := range pods {
		var err error
		if raw[i], err = json.Marshal(p); err != nil {
			b.Fatal(err)
		}
	}
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, kruntime.Object, error) {
		opts := a.(k8stesting.ListActionImpl).ListOptions
		start := 0
		if opts.Continue != "" {
			start, _ = strconv.Atoi(opts.Continue)
		}
		end := min(start+int(opts.Limit), len(raw))
		list := &corev1.PodList{Items: make([]corev1.Pod, end-start)}
		for i := start; i < end; i++ {
			if err := json.Unmarshal(raw[i], &list.Items[i-start]); err != nil {
				return true, nil, err
			}
		}
		if end < len(raw) {
			list.Continue = strconv.Itoa(end)
		}
		return true, list, nil
	})
}
