package forge_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/imagebot/imagebot/internal/gitops/forge"
)

// TestOpen: a host is opened through the driver registered for its kind,
// and a kind without one names the kinds that are linked. A driver may
// live outside imagebot (outside, in forge_test.go, implements Forge).
func TestOpen(t *testing.T) {
	forge.Register("outside", func(_ context.Context, c forge.Config) (forge.Forge, error) {
		if c.Repository == "" {
			return nil, errors.New("no repository")
		}
		return outside{}, nil
	})
	f, err := forge.Open(context.Background(), "outside", forge.Config{Repository: "o/r"})
	if err != nil || f.Name() != "Outside" {
		t.Fatalf("Open = %v, %v", f, err)
	}
	_, err = forge.Open(context.Background(), "bitbucket", forge.Config{})
	if err == nil || !strings.Contains(err.Error(), `--forge "bitbucket": want one of outside`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := forge.GroupProjects(context.Background(), "outside", forge.Config{}, "acme"); !errors.Is(err, forge.ErrNotSupported) {
		t.Errorf("groups on a host without them: %v", err)
	}
	if _, err := (&forge.App{}).Token(context.Background(), "", "o/r"); !errors.Is(err, forge.ErrNotSupported) {
		t.Errorf("an App without the GitHub driver: %v", err)
	}
}
