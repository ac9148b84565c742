package job

import (
	"log/slog"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/registry"
)

// TestChartMirrorCredentials: a registries key with a path maps chart
// repository URLs to its mirror, and its credentials go to the mirror's
// host only, never to the repository's host or to a registry.
func TestChartMirrorCredentials(t *testing.T) {
	cfg, err := config.Parse(".imagebot.yaml", []byte(`registries:
  charts.bitnami.com/bitnami:
    mirror: https://artifactory.example.com/artifactory/api/helm/bitnami-remote
    username: bot
    passwordEnv: IMAGEBOT_ARTIFACTORY_TOKEN
`))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IMAGEBOT_ARTIFACTORY_TOKEN": "s3cret"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	creds, err := credentials(cfg, cfg.Mirrors(), Registry{LookupEnv: lookup}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]registry.Credentials{"artifactory.example.com": {Username: "bot", Password: "s3cret", Env: "IMAGEBOT_ARTIFACTORY_TOKEN"}}
	if diff := cmp.Diff(want, creds); diff != "" {
		t.Errorf("credentials (-want +got):\n%s", diff)
	}
	if len(cfg.Mirrors()) != 0 {
		t.Errorf("registry mirrors %v, want none: a chart repository prefix is no registry", cfg.Mirrors())
	}
	if got := configHosts(cfg); len(got) != 1 || got[0] != "charts.bitnami.com" {
		t.Errorf("configHosts = %v, want [charts.bitnami.com]", got)
	}
}
