// Package memo remembers one answer per key for the life of a client,
// errors included, with concurrent callers for one key sharing a single
// fetch: what makes a registry tags listing or a Helm repository index
// cost one request per run however many references ask.
//
// It never expires an answer; a client lives for one run.
package memo

import (
	"context"
	"errors"
	"sync"

	"golang.org/x/sync/singleflight"
)

// Memo remembers one answer per key. The zero value is ready to use.
type Memo[T any] struct {
	mu    sync.Mutex
	done  map[string]result[T]
	group singleflight.Group
}

type result[T any] struct {
	v   T
	err error
}

// Lookup returns the answer remembered for key, if any.
func (m *Memo[T]) Lookup(key string) (T, error, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.done[key]
	return r.v, r.err, ok
}

// Put remembers an answer for key.
func (m *Memo[T]) Put(key string, v T, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done == nil {
		m.done = map[string]result[T]{}
	}
	m.done[key] = result[T]{v, err}
}

// Get returns the remembered answer for key or fetches it. The fetch runs
// with the context of the caller that started it; when that context ends,
// the error says nothing about the server: it is not remembered, and the
// callers that shared the fetch and are still waiting fetch again rather
// than fail with a context that was not theirs.
func (m *Memo[T]) Get(ctx context.Context, key string, fetch func(context.Context) (T, error)) (T, error) {
	for {
		if v, err, ok := m.Lookup(key); ok {
			return v, err
		}
		ch := m.group.DoChan(key, func() (any, error) {
			// A flight for key may have landed between Lookup and DoChan.
			if v, err, ok := m.Lookup(key); ok {
				return result[T]{v, err}, nil
			}
			v, err := fetch(ctx)
			r := result[T]{v, err}
			if ctx.Err() != nil {
				return r, errAbandoned
			}
			m.Put(key, v, err)
			return r, nil
		})
		select {
		case res := <-ch:
			if res.Err != nil && ctx.Err() == nil {
				continue // another caller's fetch, abandoned
			}
			r := res.Val.(result[T])
			return r.v, r.err
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}
}

// errAbandoned marks a fetch whose caller gave up before it ended.
var errAbandoned = errors.New("fetch abandoned")
