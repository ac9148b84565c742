package registry

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/imagebot/imagebot/internal/retry"
)

// health is what a host has shown of itself this run. It is a circuit
// breaker: after a request that got no answer the host is suspect, and
// while it is, a new request waits for those in flight to tell whether the
// host still answers (or, with none in flight, goes alone to find out).
// deadAfter unanswered requests in a row make the host down for the rest
// of the run. Without the wait, the requests queued behind a hanging
// registry's first timeouts would each wait out a timeout of their own.
//
// "In a row" is in time: attempts that were in flight together and time
// out together are one silence, not one each (a stall that heals is not a
// dead host); an attempt counts only if no silence was counted since it
// was admitted (epoch). Resets and refusals count per request, once its
// retries are spent (breaker).
type health struct {
	mu       sync.Mutex
	silent   int    // requests in a row that got no answer
	epoch    uint64 // silences counted so far
	inflight int    // admitted requests whose answer is not known yet
	down     error
	waitErr  error // a Retry-After beyond the cap, until waitTill
	waitTill time.Time
	changed  chan struct{} // closed on every change a waiter cares about
}

// blocked returns why no request may go to this host now, if anything
// forbids it.
func (h *host) blocked() error {
	h.health.mu.Lock()
	defer h.health.mu.Unlock()
	return h.blockedLocked()
}

func (h *host) blockedLocked() error {
	hs := &h.health
	if hs.down != nil {
		return hs.down
	}
	if hs.waitErr != nil && time.Now().Before(hs.waitTill) {
		return hs.waitErr
	}
	if h.budget > 0 && h.spent.Load() >= h.budget {
		return h.budgetError()
	}
	return nil
}

// admit lets a request go to the host, or says why not, and returns the
// epoch to settle it with. Every admitted request is settled once:
// answered, unanswered or abandoned.
func (h *host) admit(ctx context.Context) (uint64, error) {
	hs := &h.health
	for {
		hs.mu.Lock()
		if err := h.blockedLocked(); err != nil {
			hs.mu.Unlock()
			return 0, err
		}
		if hs.silent == 0 || hs.inflight == 0 {
			hs.inflight++
			epoch := hs.epoch
			hs.mu.Unlock()
			return epoch, nil
		}
		if hs.changed == nil {
			hs.changed = make(chan struct{})
		}
		ch := hs.changed
		hs.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

// settle records the outcome of an attempt admitted at epoch: err nil
// when the host answered, the error when it did not; abandoned when the
// caller gave up first, which says nothing about the host.
func (h *host) settle(err error, abandoned bool, epoch uint64) {
	hs := &h.health
	hs.mu.Lock()
	defer hs.mu.Unlock()
	hs.inflight--
	switch {
	case abandoned:
	case err == nil:
		hs.silent = 0
	case epoch == hs.epoch:
		h.unansweredLocked(err)
	}
	hs.broadcast()
}

// unanswered records a silence: a body that stopped coming after its
// headers came (an attempt admitted at epoch), or, with always, a request
// unanswered after its retries.
func (h *host) unanswered(err error, epoch uint64, always bool) {
	h.health.mu.Lock()
	defer h.health.mu.Unlock()
	if always || epoch == h.health.epoch {
		h.unansweredLocked(err)
	}
	h.health.broadcast()
}

func (h *host) unansweredLocked(err error) {
	hs := &h.health
	hs.epoch++
	hs.silent++
	if hs.down == nil && hs.silent >= h.c.o.deadAfter {
		hs.down = &permanent{Err: fmt.Errorf("registry %s is down: %d requests in a row got no answer (last: %v); not asked again this run", h.name, hs.silent, err)}
		h.c.log.Warn("registry is down", "host", h.name, "error", err)
	}
}

func (hs *health) broadcast() {
	if hs.changed != nil {
		close(hs.changed)
		hs.changed = nil
	}
}

func (h *host) budgetError() error {
	return &permanent{Err: fmt.Errorf("%w: the %d requests allowed for %s are spent", ErrBudget, h.budget, h.name)}
}

// spend takes one request from the budget.
func (h *host) spend() error {
	if h.budget > 0 && h.spent.Add(1) > h.budget {
		h.spent.Add(-1)
		return h.budgetError()
	}
	return nil
}

// tooLongToWait fails a 429 or 503 whose Retry-After asks for more than
// WithRetry's maxWait, and every later request to the host until then: a
// registry that wants an hour's rest gets it, and the run goes on with the
// other hosts.
func (h *host) tooLongToWait(resp *http.Response) error {
	d, ok := retry.TooLong(resp, h.c.o.retryWait)
	if !ok {
		return nil
	}
	err := &permanent{Err: fmt.Errorf("registry %s answered %d and asks to wait %s (Retry-After), longer than the %s imagebot waits; not asked again before then",
		h.name, resp.StatusCode, d, h.c.o.retryWait)}
	hs := &h.health
	hs.mu.Lock()
	hs.waitErr, hs.waitTill = err, time.Now().Add(d)
	hs.broadcast()
	hs.mu.Unlock()
	return err
}
