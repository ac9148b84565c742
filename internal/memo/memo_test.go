package memo_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/imagebot/imagebot/internal/memo"
)

// TestShared: concurrent callers for one key share one fetch, and its
// answer, an error included, is remembered.
func TestShared(t *testing.T) {
	var m memo.Memo[int]
	var fetches atomic.Int32
	release := make(chan struct{})
	boom := errors.New("boom")
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			_, err := m.Get(t.Context(), "k", func(context.Context) (int, error) {
				fetches.Add(1)
				<-release
				return 0, boom
			})
			if !errors.Is(err, boom) {
				t.Errorf("err = %v, want boom", err)
			}
		})
	}
	close(release)
	wg.Wait()
	if _, err := m.Get(t.Context(), "k", func(context.Context) (int, error) { fetches.Add(1); return 1, nil }); !errors.Is(err, boom) {
		t.Errorf("remembered err = %v, want boom", err)
	}
	if n := fetches.Load(); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}
}

// TestAbandoned: a fetch whose caller gave up is not remembered.
func TestAbandoned(t *testing.T) {
	var m memo.Memo[int]
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m.Get(ctx, "k", func(ctx context.Context) (int, error) { return 0, ctx.Err() })
	if _, _, ok := m.Lookup("k"); ok {
		t.Error("an abandoned fetch was remembered")
	}
	if v, err := m.Get(t.Context(), "k", func(context.Context) (int, error) { return 7, nil }); v != 7 || err != nil {
		t.Errorf("Get = %d, %v; want 7", v, err)
	}
}
