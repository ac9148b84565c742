package forge

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestRateLimitWait(t *testing.T) {
	now := time.Date(2024, 6, 12, 10, 0, 0, 0, time.UTC)
	resp := func(status int, h ...string) *http.Response {
		r := &http.Response{StatusCode: status, Header: http.Header{}}
		for i := 0; i < len(h); i += 2 {
			r.Header.Set(h[i], h[i+1])
		}
		return r
	}
	reset := strconv.FormatInt(now.Add(90*time.Second).Unix(), 10)
	for _, tc := range []struct {
		name    string
		resp    *http.Response
		wait    time.Duration
		limited bool
	}{
		{"no response", nil, 0, false},
		{"success", resp(200, "X-RateLimit-Remaining", "0"), 0, false},
		{"server error", resp(502), 0, false},
		{"forbidden, no limit", resp(403), 0, false},
		{"secondary 403", resp(403, "Retry-After", "30"), 30 * time.Second, true},
		{"secondary 429", resp(429, "Retry-After", "5"), 5 * time.Second, true},
		{"429 without a word", resp(429), time.Minute, true},
		{"Retry-After as a date", resp(429, "Retry-After", now.Add(time.Minute).Format(http.TimeFormat)), time.Minute, true},
		{"primary 403", resp(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset), 91 * time.Second, true},
		{"primary 429", resp(429, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", reset), 91 * time.Second, true},
		{"primary, reset passed", resp(403, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1"), time.Second, true},
		{"primary without reset", resp(403, "X-RateLimit-Remaining", "0"), time.Minute, true},
		{"GitLab's 429", resp(429, "RateLimit-Remaining", "0", "RateLimit-Reset", reset), 91 * time.Second, true},
		{"GitLab's 403 is no limit", resp(403, "RateLimit-Remaining", "0", "RateLimit-Reset", reset), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wait, limited := RateLimitWait(tc.resp, now)
			if wait != tc.wait || limited != tc.limited {
				t.Errorf("RateLimitWait = %v, %v; want %v, %v", wait, limited, tc.wait, tc.limited)
			}
		})
	}
}
