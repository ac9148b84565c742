package registry

import (
	"context"
	"errors"
	"sync"

	"golang.org/x/sync/singleflight"
)

// memo remembers one answer per key for the life of a Client, errors
// included: a repository that failed once is not asked again in the same
// run. Concurrent callers for one key share a single fetch.
type memo[T any] struct {
	mu    sync.Mutex
	done  map[string]result[T]
	group singleflight.Group
}

type result[T any] struct {
	v   T
	err error
}

func (m *memo[T]) lookup(key string) (result[T], bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.done[key]
	return r, ok
}

func (m *memo[T]) put(key string, v T, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.done == nil {
		m.done = map[string]result[T]{}
	}
	m.done[key] = result[T]{v, err}
}

// get returns the remembered answer for key or fetches it. The fetch runs
// with the context of the caller that started it; when that context ends,
// the error says nothing about the registry: it is not remembered, and
// the callers that shared the fetch and are still waiting fetch again
// rather than fail with a context that was not theirs.
func (m *memo[T]) get(ctx context.Context, key string, fetch func(context.Context) (T, error)) (T, error) {
	for {
		if r, ok := m.lookup(key); ok {
			return r.v, r.err
		}
		ch := m.group.DoChan(key, func() (any, error) {
			// A flight for key may have landed between lookup and DoChan.
			if r, ok := m.lookup(key); ok {
				return r, nil
			}
			v, err := fetch(ctx)
			r := result[T]{v, err}
			if ctx.Err() != nil {
				return r, errAbandoned
			}
			m.put(key, v, err)
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
