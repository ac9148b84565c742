package release

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// goreleaser is the part of .goreleaser.yaml that others depend on: the
// Action's install script finds archives by this name and checksum file.
type goreleaser struct {
	cfg          map[string]any // the whole file
	nameTemplate *template.Template
	checksums    string
	zipOn        []string // GOOS values whose archive is a zip
}

// archiveName is the archive GoReleaser publishes for version (no "v").
func (g goreleaser) archiveName(t *testing.T, version, goos, goarch string) string {
	t.Helper()
	var b strings.Builder
	err := g.nameTemplate.Execute(&b, map[string]string{
		"ProjectName": "imagebot", "Version": version, "Os": goos, "Arch": goarch,
	})
	if err != nil {
		t.Fatalf(".goreleaser.yaml name_template: %v", err)
	}
	if slices.Contains(g.zipOn, goos) {
		return b.String() + ".zip"
	}
	return b.String() + ".tar.gz"
}

func loadGoreleaser(t *testing.T) goreleaser {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := yaml.Parse(string(raw))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := node.Map()
	if err != nil {
		t.Fatal(err)
	}
	archives, _ := cfg["archives"].([]any)
	if len(archives) != 1 {
		t.Fatalf(".goreleaser.yaml: %d archives, want 1", len(archives))
	}
	a, _ := archives[0].(map[string]any)
	name, _ := a["name_template"].(string)
	tmpl, err := template.New("name").Option("missingkey=error").Parse(name)
	if err != nil {
		t.Fatalf(".goreleaser.yaml name_template %q: %v", name, err)
	}
	g := goreleaser{cfg: cfg, nameTemplate: tmpl}
	g.checksums, _ = dig(cfg, "checksum", "name_template").(string)
	if formats := dig(a, "formats"); !equalAny(formats, []any{"tar.gz"}) {
		t.Errorf("archives.formats = %v; scripts/install-action.sh extracts tar.gz", formats)
	}
	overrides, _ := a["format_overrides"].([]any)
	for _, o := range overrides {
		if !equalAny(dig(o, "formats"), []any{"zip"}) {
			t.Errorf("format override %v; scripts/install-action.sh knows tar.gz and zip", o)
		}
		goos, _ := dig(o, "goos").(string)
		g.zipOn = append(g.zipOn, goos)
	}
	return g
}

// TestGoreleaserConfig pins what a release must be for the Action and for
// users verifying downloads: every platform built from ./cmd/bot as
// imagebot, static, stamped, reproducible, with a sha256 checksums.txt.
func TestGoreleaserConfig(t *testing.T) {
	g := loadGoreleaser(t)
	if g.checksums != "checksums.txt" {
		t.Errorf("checksum name %q; the install script and README read checksums.txt", g.checksums)
	}
	for _, tc := range []struct{ goos, want string }{
		{"linux", "imagebot_1.2.3_linux_amd64.tar.gz"},
		{"windows", "imagebot_1.2.3_windows_amd64.zip"},
	} {
		if got := g.archiveName(t, "1.2.3", tc.goos, "amd64"); got != tc.want {
			t.Errorf("archive %q, want %q, the name the README's download example uses", got, tc.want)
		}
	}

	cfg := g.cfg
	if v := cfg["version"]; v != 2 {
		t.Errorf("version = %v, want 2 (GoReleaser v2 schema)", v)
	}
	if dig(cfg, "checksum", "algorithm") != "sha256" {
		t.Error("checksum.algorithm must be sha256: the Action verifies with sha256sum")
	}
	builds, _ := cfg["builds"].([]any)
	if len(builds) != 1 {
		t.Fatalf("%d builds, want 1", len(builds))
	}
	b := builds[0]
	for key, want := range map[string]any{
		"main": "./cmd/bot", "binary": "imagebot", "mod_timestamp": "{{ .CommitTimestamp }}",
		"env": []any{"CGO_ENABLED=0"}, "flags": []any{"-trimpath"},
		"goos": []any{"linux", "darwin", "windows"}, "goarch": []any{"amd64", "arm64"},
	} {
		if got := dig(b, key); !equalAny(got, want) {
			t.Errorf("builds[0].%s = %v, want %v", key, got, want)
		}
	}
	ldflags, _ := dig(b, "ldflags").([]any)
	if len(ldflags) != 1 || !strings.Contains(ldflags[0].(string), "-X main.version={{ .Version }}") {
		t.Errorf("ldflags %v must stamp -X main.version={{ .Version }}", ldflags)
	}
}

func equalAny(got, want any) bool {
	gs, ok1 := got.([]any)
	ws, ok2 := want.([]any)
	if ok1 && ok2 {
		return slices.Equal(gs, ws)
	}
	return got == want
}

// dig walks nested maps; nil when a key is missing.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}
