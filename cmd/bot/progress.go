package main

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// progress draws one self-overwriting line on a terminal, and nothing when
// stderr is a file or a pipe (CI logs stay clean).
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	label string
	shown bool
}

func newProgress(w io.Writer, label string) *progress {
	f, ok := w.(*os.File)
	if !ok {
		return &progress{}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return &progress{}
	}
	return &progress{w: w, label: label}
}

func (p *progress) update(done, total int) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r%s %d/%d", p.label, done, total)
	p.shown = true
}

func (p *progress) done() {
	if p.w == nil || !p.shown {
		return
	}
	fmt.Fprint(p.w, "\r\033[K")
}
