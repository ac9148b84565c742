package adopt

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

// TestRenovateLocalPresets: presets kept in this repository are followed
// in every form Renovate spells them (local>, github>, gitlab> with a
// group path, //file, :name, default.json), preset rules first and the
// config's own after them; a preset in another repository is named as
// not followed; a preset that extends itself, nesting past the limit and
// a missing file are notes, never a failure.
func TestRenovateLocalPresets(t *testing.T) {
	fsys := fstest.MapFS{
		"apps/web.yaml": {Data: []byte("image: ghcr.io/acme/web:1.0.0\n---\nimage: ghcr.io/acme/api:1.0.0\n---\nimage: ghcr.io/acme/worker:1.0.0\n---\nimage: ghcr.io/acme/db:1.0.0\n")},
		"renovate.json5": {Data: []byte(`{
  extends: [
    'local>acme/gitops//.renovate/groups.json5',
    'github>Acme/GitOps:automerge#v1',
    'gitlab>acme/gitops',
    'github>acme/shared-config//docker',
    'local>acme/gitops//.renovate/loop',
    'local>acme/gitops//.renovate/missing.json',
  ],
  packageRules: [{matchPackageNames: ['ghcr.io/acme/web'], allowedVersions: '<3.0.0'}],
}`)},
		".renovate/groups.json5": {Data: []byte(`{
  extends: ['local>acme/gitops//.renovate/pins.json'],
  packageRules: [{matchPackageNames: ['ghcr.io/acme/web', 'ghcr.io/acme/api'], groupName: 'acme apps'}],
}`)},
		".renovate/pins.json": {Data: []byte(`{"packageRules": [{"matchPackageNames": ["ghcr.io/acme/web"], "allowedVersions": "<2.0.0"}]}`)},
		"automerge.json":      {Data: []byte(`{"packageRules": [{"matchPackageNames": ["ghcr.io/acme/worker"], "automerge": true}]}`)},
		"default.json":        {Data: []byte(`{"prHourlyLimit": 3}`)},
		".renovate/loop.json": {Data: []byte(`{"extends": ["local>acme/gitops//.renovate/loop.json"], "packageRules": [{"matchPackageNames": ["ghcr.io/acme/db"], "enabled": false}]}`)},
	}
	res, err := FromRenovate(t.Context(), fsys, Options{Repository: "acme/gitops"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Config)
	}
	if g := c.GroupFor("ghcr.io/acme/api"); g == nil || g.Name != "acme-apps" {
		t.Errorf("group from .renovate/groups.json5 not converted:\n%s", res.Config)
	}
	if r := c.For("ghcr.io/acme/web", "apps/web.yaml"); r.Range != "<3.0.0" {
		t.Errorf("web range %q: the config's own rule must come after the preset's (<2.0.0)", r.Range)
	}
	if r := c.For("ghcr.io/acme/worker", "apps/web.yaml"); len(r.Automerge) == 0 {
		t.Errorf("automerge from the :automerge preset not converted")
	}
	if r := c.For("ghcr.io/acme/db", "apps/web.yaml"); !r.Skip {
		t.Errorf("the rule of a preset that extends itself was lost")
	}
	if c.PullRequests.PerHour != 3 {
		t.Errorf("perHour %d, want 3 from default.json", c.PullRequests.PerHour)
	}
	notes := fmt.Sprint(res.Notes)
	for _, want := range []string{
		`extends "github>acme/shared-config//docker": a preset in another repository; not followed`,
		`.renovate/loop.json extends itself; followed once`,
		`.renovate/missing.json is not in the repository; not followed`,
		`read from the files as they are now, not at v1`,
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("no note %q:\n%s", want, strings.ReplaceAll(notes, "} {", "}\n{"))
		}
	}
	if !strings.Contains(string(res.Config), "From packageRules[0] (.renovate/pins.json:1).") {
		t.Errorf("a preset's rule does not name its file:\n%s", res.Config)
	}

	// Without knowing which repository this is, no preset is followed,
	// and each is named.
	res, err = FromRenovate(t.Context(), fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), `a preset in a repository init cannot tell is this one; not followed`) {
		t.Errorf("notes: %v", res.Notes)
	}
}

// TestRenovatePresetsBounded: presets together are held to the size of
// one config, so a repository of presets cannot make init read more.
func TestRenovatePresetsBounded(t *testing.T) {
	big := `{"description": "` + strings.Repeat("x", maxRenovate-200) + `"}`
	fsys := fstest.MapFS{
		"renovate.json": {Data: []byte(`{"extends": ["local>acme/gitops//a.json", "local>acme/gitops//b.json"]}`)},
		"a.json":        {Data: []byte(big)},
		"b.json":        {Data: []byte(big)},
	}
	res, err := FromRenovate(t.Context(), fsys, Options{Repository: "acme/gitops"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), `extends "local>acme/gitops//b.json": too large for init: the config and its presets together pass`) {
		t.Errorf("notes: %v", res.Notes)
	}
}
