package retry

import (
	"net/http"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"1", time.Second, true},
		{"120", 2 * time.Minute, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0, true}, // in the past: go now
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := After(tc.in, now)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("After(%q) = %s, %t; want %s, %t", tc.in, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestBackoff(t *testing.T) {
	resp := func(retryAfter string) *http.Response {
		return &http.Response{Header: http.Header{"Retry-After": {retryAfter}}}
	}
	tests := []struct {
		name     string
		attempt  int
		resp     *http.Response
		min, max time.Duration // bounds of the answer (jitter)
	}{
		{"first retry", 0, nil, 500 * time.Millisecond, 625 * time.Millisecond},
		{"doubles", 2, nil, 2 * time.Second, 2500 * time.Millisecond},
		{"capped", 10, nil, 30 * time.Second, 30 * time.Second},
		{"Retry-After honoured", 0, resp("7"), 7 * time.Second, 7 * time.Second},
		{"Retry-After capped", 0, resp("3600"), 30 * time.Second, 30 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Backoff(500*time.Millisecond, 30*time.Second, tc.attempt, tc.resp)
			if got < tc.min || got > tc.max {
				t.Errorf("Backoff = %s, want within [%s, %s]", got, tc.min, tc.max)
			}
		})
	}
}
