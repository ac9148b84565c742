package policy

import "testing"

// BenchmarkIndexDecide reads node's 8,600-tag listing once and decides ten
// tags against it, as plan does for one image referenced at ten tags.
//
//	go test ./internal/policy -run '^$' -bench IndexDecide -benchmem
func BenchmarkIndexDecide(b *testing.B) {
	tags := listing(b, "node")
	currents := []string{"20.11.1", "20.11.1-alpine3.18", "20", "lts", "18.20.0-bullseye", "20.11.1-bookworm-slim",
		"22.0.0-alpine", "0.10.48", "iron-alpine3.19", "chakracore-8.9.4"}
	p, err := New(Spec{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		x := p.Index(tags)
		for _, c := range currents {
			if _, err := x.Decide(c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(tags)), "tags")
}
