package scan

import "testing"

// The hostile inputs of issue 9, as benchmarks: their speed is measured
// here, never asserted in a timed test. Before the fixes, on a shared
// 2-core machine: the single-line JSON took 165 s of CPU, the syntax error
// 95 s (and named the wrong line).

func BenchmarkFileSingleLineJSON5MiB(b *testing.B) {
	src := singleLineJSON(5<<20, "équipe-web")
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if res := File("list.yaml", src); len(res.Refs) == 0 {
			b.Fatal("no refs")
		}
	}
}

func BenchmarkSyntaxError8MiB(b *testing.B) {
	src, line := badLine(8 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		res := File("bundle.yaml", src)
		if len(res.Problems) != 1 || res.Problems[0].Line != line {
			b.Fatalf("problems %v, want one at line %d", res.Problems, line)
		}
	}
}

// BenchmarkFileBundle8MiB is the biggest file scanned by default: a
// generated bundle of Deployments at the size cap.
func BenchmarkFileBundle8MiB(b *testing.B) {
	src := bundle(DefaultMaxFileSize)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if res := File("bundle.yaml", src); len(res.Refs) == 0 {
			b.Fatal("no refs")
		}
	}
}
