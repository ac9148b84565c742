package serve

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/job"
)

// Notifications wait in a queue, one entry per image: a second push of
// an image before the first was handled replaces its tag and digest (the
// newest push is what matters) and keeps the first arrival, for
// imagebot_hook_to_pr_seconds. One worker takes them in arrival order
// under the lock every run holds, so runs never overlap.

type queued struct {
	push
	kind string
	at   time.Time
}

type hookQueue struct {
	mu      sync.Mutex
	pending map[string]*queued
	order   []string
	wake    chan struct{}
}

func newHookQueue() *hookQueue {
	return &hookQueue{pending: map[string]*queued{}, wake: make(chan struct{}, 1)}
}

func (q *hookQueue) add(p push, kind string, at time.Time) {
	q.mu.Lock()
	if have, ok := q.pending[p.Image]; ok {
		have.push, have.kind = p, kind
	} else {
		q.pending[p.Image] = &queued{push: p, kind: kind, at: at}
		q.order = append(q.order, p.Image)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

func (q *hookQueue) take() []queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := make([]queued, 0, len(q.order))
	for _, img := range q.order {
		out = append(out, *q.pending[img])
	}
	q.pending, q.order = map[string]*queued{}, nil
	return out
}

// hookWorker handles queued notifications until ctx ends.
func (s *Server) hookWorker(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.queue.wake:
		}
		// The queue is read once the run going on is over, so that
		// what arrived meanwhile is coalesced per image.
		s.running.Lock()
		if ctx.Err() != nil {
			s.running.Unlock()
			return
		}
		for _, q := range s.queue.take() {
			s.onPush(ctx, q)
		}
		s.running.Unlock()
	}
}

// handlePush looks the notified image up and runs the checkouts that
// reference it, planning that image alone. Nothing is written for an
// image no checkout references, or a tag or digest the registry does not
// serve: each is logged once and counted.
func (s *Server) handlePush(ctx context.Context, q queued) {
	log := s.log.With("kind", q.kind, "image", q.Image, "tag", q.Tag)
	result := func(r string) { s.metrics.hookRequests.WithLabelValues(q.kind, r).Inc() }
	pool := job.NewPool(s.o.Job)
	defer pool.Done()
	var cands []Target
	for _, t := range s.targets {
		if _, err := os.Stat(t.Dir); err != nil {
			// Not cloned yet: a hook before the first run.
			if err := s.sync(ctx, t); err != nil {
				log.Error("cannot clone; its references are unknown", "repository", t.label(), "err", err)
				continue
			}
		}
		ok, err := job.References(ctx, s.jobOptions(t, pool, io.Discard), q.Image)
		if err != nil {
			log.Error("cannot scan the checkout", "repository", t.label(), "err", err)
			continue
		}
		if ok {
			cands = append(cands, t)
		}
	}
	if len(cands) == 0 {
		log.Warn("push notification for an image no served repository references: nothing done")
		result("unknown_image")
		return
	}
	if err := job.CheckPush(ctx, s.jobOptions(cands[0], pool, io.Discard), q.Image, q.Tag, q.Digest); err != nil {
		if errors.Is(err, job.ErrNotServed) {
			log.Warn("push notification not backed by the registry: nothing done", "err", err)
			result("not_served")
		} else {
			log.Error("cannot look the notified image up: nothing done", "err", err)
			result("lookup_failed")
		}
		return
	}
	log.Info("push notification: planning the repositories that reference the image", "repositories", len(cands))
	run := s.jobPassFor(pool, []string{q.Image})
	slots := make(chan struct{}, max(1, s.o.Parallel))
	var wg sync.WaitGroup
	for _, t := range cands {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			sum, _ := s.runOne(ctx, run.each, t)
			s.metrics.pulls.WithLabelValues("opened").Add(float64(sum.Opened))
			s.metrics.pulls.WithLabelValues("updated").Add(float64(sum.Updated))
			for range sum.Opened + sum.Updated {
				s.metrics.hookToPR.Observe(s.hookNow().Sub(q.at).Seconds())
			}
		})
	}
	wg.Wait()
	result("done")
}

// runLock is a mutex over a channel: a push hook's worker waiting for the
// scheduled run blocks on a channel, which lets tests run the schedule in
// a synctest bubble (a goroutine blocked on a sync.Mutex would stop its
// clock).
type runLock chan struct{}

func (l runLock) Lock()   { l <- struct{}{} }
func (l runLock) Unlock() { <-l }

func (l runLock) TryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}
