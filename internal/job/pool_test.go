package job

import (
	"testing"

	"github.com/imagebot/imagebot/internal/config"
)

// TestSettingsKey: repositories share a registry client only when their
// registry settings are the same, so that one repository's credentials
// never serve another's lookups.
func TestSettingsKey(t *testing.T) {
	o := &Options{}
	cfg := func(regs map[string]config.Registry) *config.Config { return &config.Config{Registries: regs} }
	base := settingsKey(o, cfg(nil))
	if got := settingsKey(o, cfg(map[string]config.Registry{})); got != base {
		t.Error("no registries and an empty map differ")
	}
	same := map[string]config.Registry{"ghcr.io": {Username: "bot", PasswordEnv: "GHCR_TOKEN"}}
	if settingsKey(o, cfg(same)) != settingsKey(o, cfg(map[string]config.Registry{"ghcr.io": {Username: "bot", PasswordEnv: "GHCR_TOKEN"}})) {
		t.Error("equal settings, different keys")
	}
	for name, regs := range map[string]map[string]config.Registry{
		"credentials": same,
		"other user":  {"ghcr.io": {Username: "other", PasswordEnv: "GHCR_TOKEN"}},
		"other var":   {"ghcr.io": {Username: "bot", PasswordEnv: "OTHER_TOKEN"}},
		"mirror":      {"docker.io": {Mirror: "https://mirror.example.com"}},
		"budget":      {"docker.io": {MaxRequests: 10}},
	} {
		if settingsKey(o, cfg(regs)) == base {
			t.Errorf("%s: same key as no settings", name)
		}
	}
	if settingsKey(o, cfg(same)) == settingsKey(o, cfg(map[string]config.Registry{"ghcr.io": {Username: "other", PasswordEnv: "GHCR_TOKEN"}})) {
		t.Error("two usernames share a key")
	}
	flagged := &Options{Registry: Registry{Cache: &Cache{Dir: "/cache"}}}
	if settingsKey(flagged, cfg(nil)) == base {
		t.Error("--cache does not change the key")
	}
	mirrored := &Options{Registry: Registry{Mirrors: map[string]string{"docker.io": "https://mirror.example.com"}}}
	if settingsKey(mirrored, cfg(nil)) == base {
		t.Error("--mirror does not change the key")
	}
}
