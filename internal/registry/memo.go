package registry

import (
	"context"

	memos "github.com/imagebot/imagebot/internal/memo"
)

// memo remembers one answer per key for the life of a Client, errors
// included, concurrent callers sharing one fetch (internal/memo).
type memo[T any] struct{ m memos.Memo[T] }

type result[T any] struct {
	v   T
	err error
}

func (m *memo[T]) lookup(key string) (result[T], bool) {
	v, err, ok := m.m.Lookup(key)
	return result[T]{v, err}, ok
}

func (m *memo[T]) put(key string, v T, err error) { m.m.Put(key, v, err) }

func (m *memo[T]) get(ctx context.Context, key string, fetch func(context.Context) (T, error)) (T, error) {
	return m.m.Get(ctx, key, fetch)
}
