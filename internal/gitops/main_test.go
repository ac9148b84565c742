package gitops_test

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"
)

// TestMain runs the tests with the collector at GOGC=400 rather than 100:
// a session allocates much and keeps little, so at the default a sixth of
// the package's CPU went to collecting. No test here reads the heap but
// after runtime.GC, where the setting makes no difference; the benchmarks
// report peak RSS "with the garbage collector as configured", so a run
// with -test.bench, or with GOGC set, keeps the collector as it is.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" && !benchmarking(os.Args[1:]) {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}

// benchmarking reports whether args ask for benchmarks (-test.bench with a
// pattern), read before the testing package parses them.
func benchmarking(args []string) bool {
	for i, a := range args {
		name, v, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if name != "test.bench" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			v = args[i+1]
		}
		return v != ""
	}
	return false
}
