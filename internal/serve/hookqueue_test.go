package serve

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/imagebot/imagebot/internal/job"
)

// TestHookWaitsForTheRun: a notification that arrives during a scheduled
// run is answered at once and handled right after the run, never
// alongside it; two pushes of one image meanwhile are handled once, for
// the later tag. Time is synctest's.
func TestHookWaitsForTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		var mu sync.Mutex
		var runEnd time.Time
		type handled struct {
			tag string
			at  time.Duration
		}
		var got []handled
		each := func(ctx context.Context, _ Target) (job.Summary, Status) {
			time.Sleep(3 * time.Second)
			mu.Lock()
			runEnd = time.Now()
			mu.Unlock()
			return job.Summary{}, OK
		}
		h := startServer(t, Options{Dir: "checkout", Schedule: mustSchedule(t, "@every 1h"), RunAtStart: true, newRun: runOf(each),
			Hooks: HookOptions{Secret: []byte(hookSecret)}})
		h.s.onPush = func(_ context.Context, q queued) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, handled{q.Tag, time.Since(start)})
		}
		synctest.Wait() // the run is going
		for _, tag := range []string{"main-0000001", "main-0000002"} {
			body := `{"image": "ghcr.io/acme/api", "tag": "` + tag + `"}`
			req, _ := http.NewRequest(http.MethodPost, "http://imagebot/hooks/generic", strings.NewReader(body))
			req.Header.Set("X-Imagebot-Signature-256", sign(body))
			resp, err := h.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("status %d, want 202", resp.StatusCode)
			}
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(got) != 1 || got[0].tag != "main-0000002" {
			t.Fatalf("handled %+v, want main-0000002 once", got)
		}
		if got[0].at < runEnd.Sub(start) {
			t.Errorf("handled at %v, before the run ended at %v", got[0].at, runEnd.Sub(start))
		}
	})
}
