package main

import (
	"io"
	"runtime"
	"sync"
)

// defaultParallel is how many repositories serve runs at once unless
// --parallel says otherwise. A repository's run mostly waits on git,
// GitHub and registries: on 200 repositories with 20 ms per request
// (BENCHMARKS.md), 8 at once took 16 s where 4 took 26 s and one 90 s,
// on 2 CPUs. Beyond 8, a GitHub token's concurrent requests and the
// memory of the trees in flight grow for little: 8, or 4 on one CPU.
func defaultParallel() int { return min(8, 4*runtime.GOMAXPROCS(0)) }

// lockedWriter lets the repositories of a run write to one stream: serve
// writes each repository's output whole when its run ends, and the logs
// of several repositories go to stderr at once.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
