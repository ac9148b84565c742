package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/rollout"
	"github.com/imagebot/imagebot/internal/scan"
)

// TestPrevious: without --to, a rollback goes back to the tag the image had
// before the commit that brought the current one, whatever happened to
// other files and images since.
func TestPrevious(t *testing.T) {
	tests := []struct {
		name    string
		commits []commit
		tag     string
		brought string
		err     string
	}{{
		name: "one step back",
		commits: []commit{
			{"c0", 100 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.25.3"), "b.yaml": deploy("redis:7.2.4")}},
			{"c1", 50 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.0")}},
			{"c2", 10 * time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.1"), "b.yaml": deploy("redis:7.4.1")}},
			{"c3", 1 * time.Hour, map[string]string{"b.yaml": deploy("redis:7.4.2"), "a.yaml": deploy("nginx:1.26.1", "busybox:1.36.0")}},
		},
		tag: "1.26.0", brought: "c2",
	}, {
		name:    "always at one tag",
		commits: []commit{{"c0", time.Hour, map[string]string{"a.yaml": deploy("nginx:1.26.1")}}},
		err:     "came into the repository at 1.26.1 in commit c0",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &history{commits: tc.commits}
			refs := scanTip(t, h, config.Default())
			var nginx []scan.Ref
			for _, r := range refs {
				if r.Image == "docker.io/library/nginx" {
					nginx = append(nginx, r)
				}
			}
			tag, c, err := rollout.Previous(t.Context(), h, nginx)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || tag != tc.tag || c.Hash != tc.brought {
				t.Errorf("Previous = %q, %s, %v; want %q, %s", tag, c.Hash, err, tc.tag, tc.brought)
			}
		})
	}
}
