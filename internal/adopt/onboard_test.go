package adopt

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/imagebot/imagebot/internal/config"
)

const webManifest = "image: ghcr.io/acme/web:1.0.0\n"

// TestOnboardDetects: onboarding converts from Renovate under every file
// name Renovate reads (package.json's "renovate" key included) and from
// Flux image automation, says so at the top, says what to turn off there,
// and states the limits; a repository with neither gets plain init.
func TestOnboardDetects(t *testing.T) {
	rule := `{"packageRules": [{"matchPackageNames": ["ghcr.io/acme/web"], "allowedVersions": "<2.0.0"}]}`
	for _, name := range renovateFiles {
		t.Run(name, func(t *testing.T) {
			src := rule
			if name == "package.json" {
				src = `{"name": "site", "renovate": ` + rule + `}`
			}
			res, err := Onboard(t.Context(), fstest.MapFS{name: {Data: []byte(src)}, "apps/web.yaml": {Data: []byte(webManifest)}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			lead := res.Lead()
			for _, want := range []string{
				"**Converted from `" + name + "`.**",
				`"matchDatasources": ["docker", "helm"]`,
				"After merging: 2 pull requests an hour, 10 at most; the rest waits on the dashboard",
			} {
				if !strings.Contains(lead, want) {
					t.Errorf("lead lacks %q:\n%s", want, lead)
				}
			}
			if !strings.Contains(string(res.Config), "range: <2.0.0") {
				t.Errorf("the rule was not converted:\n%s", res.Config)
			}
		})
	}

	t.Run("flux", func(t *testing.T) {
		fsys := fstest.MapFS{
			"apps/web.yaml": {Data: []byte(webManifest)},
			"flux/images.yaml": {Data: []byte(`apiVersion: image.toolkit.fluxcd.io/v1beta2
kind: ImageRepository
metadata: {name: web, namespace: flux-system}
spec: {image: ghcr.io/acme/web}
---
apiVersion: image.toolkit.fluxcd.io/v1beta2
kind: ImagePolicy
metadata: {name: web, namespace: flux-system}
spec:
  imageRepositoryRef: {name: web}
  policy: {semver: {range: ">=1.0.0"}}
---
apiVersion: image.toolkit.fluxcd.io/v1beta2
kind: ImageUpdateAutomation
metadata: {name: "apps` + "`" + `<!--", namespace: flux-system}
spec:
  git:
    commit:
      author: {name: fluxbot, email: fluxbot@example.com}
`)},
		}
		res, err := Onboard(t.Context(), fsys, Options{})
		if err != nil {
			t.Fatal(err)
		}
		lead := res.Lead()
		if !strings.Contains(lead, "**Converted from Flux image automation.**") || !strings.Contains(lead, "flux suspend image update") {
			t.Errorf("lead:\n%s", lead)
		}
		if strings.Contains(lead, "<!--") || strings.Count(lead, "`")%2 != 0 {
			t.Errorf("a name from the repository forms Markdown in the lead:\n%s", lead)
		}
		if strings.Contains(string(res.Config), "email:") {
			t.Errorf("Flux's commit author was copied:\n%s", res.Config)
		}
	})

	t.Run("neither", func(t *testing.T) {
		res, err := Onboard(t.Context(), fstest.MapFS{"apps/web.yaml": {Data: []byte(webManifest)}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.From != "" || res.Handover != "" || !strings.HasPrefix(res.Lead(), "After merging: 2 pull requests an hour, 10 at most;") {
			t.Errorf("plain init: from %q handover %q lead %q", res.From, res.Handover, res.Lead())
		}
	})

	t.Run("renovate config that does not convert", func(t *testing.T) {
		res, err := Onboard(t.Context(), fstest.MapFS{".renovaterc": {Data: []byte("{not json")}, "apps/web.yaml": {Data: []byte(webManifest)}}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Lead(), "could not be converted") || !strings.Contains(res.Handover, "`.renovaterc`") {
			t.Errorf("lead:\n%s", res.Lead())
		}
	})

	t.Run("renovate conversion too large to write", func(t *testing.T) {
		var rules []string
		for i := range 8_000 {
			rules = append(rules, fmt.Sprintf(`{"matchPackageNames": ["ghcr.io/acme/service-number-%d"], "allowedVersions": "<2.0.0"}`, i))
		}
		src := `{"packageRules": [` + strings.Join(rules, ",\n") + `]}`
		res, err := Onboard(t.Context(), fstest.MapFS{"renovate.json": {Data: []byte(src)}, "apps/web.yaml": {Data: []byte(webManifest)}}, Options{})
		if err != nil {
			t.Fatalf("onboarding failed instead of proposing init's config: %v", err)
		}
		if !strings.Contains(res.Notes[0].String(), "renovate.json: Renovate's config was not converted: too large for init") || res.Handover == "" {
			t.Errorf("notes %v, handover %q", res.Notes, res.Handover)
		}
	})
}

// TestInitCalmAndExcludes: the config plain init writes sets the limits
// explicitly and excludes the directories kept for tests, vendored code
// and a release archive (five versions of one image in one directory),
// each with why; directories that do not exist, and environments that
// pin two versions, are not excluded.
func TestInitCalmAndExcludes(t *testing.T) {
	fsys := fstest.MapFS{
		"envs/dev/web.yaml":               {Data: []byte(webManifest)},
		"envs/prod/web.yaml":              {Data: []byte("image: ghcr.io/acme/web:0.9.0\n")},
		"charts/web/testdata/a.yaml":      {Data: []byte(webManifest)},
		"vendor/github.com/x/deploy.yaml": {Data: []byte(webManifest)},
		"ui/node_modules/pkg/x.yaml":      {Data: []byte("a: b\n")},
	}
	for i := range 5 {
		fsys[fmt.Sprintf("releases/web-1.%d.0.yaml", i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "image: ghcr.io/acme/web:1.%d.0\n", i)}
	}
	res, err := Init(t.Context(), fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Config)
	}
	if c.PullRequests.MaxOpen != 10 || c.PullRequests.PerHour != 2 || res.Limits != (Limits{MaxOpen: 10, PerHour: 2}) {
		t.Errorf("limits %+v (result %+v), want maxOpen 10 and perHour 2 written out", c.PullRequests, res.Limits)
	}
	cfg := string(res.Config)
	for _, want := range []string{
		"  - '**/node_modules/**' # installed JavaScript packages, not deployments (ui/node_modules/)",
		"  - '**/vendor/**' # vendored copies of other people's code (vendor/)",
		"  - '**/testdata/**' # test data (charts/web/testdata/)",
		"  - releases/** # its files pin 5 different versions of ghcr.io/acme/web: a release archive, not deployments",
		"# After merging: 2 pull requests an hour, 10 at most; the rest waits on the dashboard.",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	for _, file := range []string{"envs/dev/web.yaml", "envs/prod/web.yaml"} {
		if !c.Included(file) {
			t.Errorf("%s is excluded", file)
		}
	}
	for _, file := range []string{"releases/web-1.0.0.yaml", "charts/web/testdata/a.yaml", "vendor/github.com/x/deploy.yaml"} {
		if c.Included(file) {
			t.Errorf("%s is scanned", file)
		}
	}
	if strings.Contains(cfg, "__fixtures__") || strings.Contains(cfg, "examples") {
		t.Errorf("directories that do not exist are excluded:\n%s", cfg)
	}
}

// TestRenovateGlobalKeys: prHourlyLimit is perHour, prConcurrentLimit
// maxOpen (0 stays "no limit"), separateMajorMinor false converts,
// registryAliases of a host become a mirror (a variable is a note), and
// ignorePaths that presets imply are converted when the config sets none.
func TestRenovateGlobalKeys(t *testing.T) {
	src := `{
  extends: ['config:recommended'],
  prHourlyLimit: 5,
  prConcurrentLimit: 0,
  separateMajorMinor: false,
  registryAliases: {'registry.acme.internal': 'harbor.acme.example/proxy', '$CI_REGISTRY': 'registry.gitlab.com', 'odd.example': 'mirror.example/a b?c'},
}`
	res, err := FromRenovate(t.Context(), fstest.MapFS{"renovate.json5": {Data: []byte(src)}, "apps/web.yaml": {Data: []byte(webManifest)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Config)
	}
	if c.PullRequests.PerHour != 5 || c.PullRequests.MaxOpen != 0 || res.Limits.String() != "5 pull requests an hour, no limit on open ones" {
		t.Errorf("limits %+v, %q", c.PullRequests, res.Limits)
	}
	if c.SeparateMajorMinor == nil || *c.SeparateMajorMinor {
		t.Errorf("separateMajorMinor: %v", c.SeparateMajorMinor)
	}
	if m := c.Registries["registry.acme.internal"].Mirror; m != "https://harbor.acme.example/proxy" {
		t.Errorf("registryAliases mirror %q", m)
	}
	if !strings.Contains(fmt.Sprint(res.Notes), `registryAliases "$CI_REGISTRY": imagebot does not expand variables`) {
		t.Errorf("notes: %v", res.Notes)
	}
	for _, dir := range []string{"node_modules", "__fixtures__", "examples", "vendor"} {
		if c.Included(dir + "/x.yaml") {
			t.Errorf("%s is scanned; config:recommended ignores it", dir)
		}
	}
}

// TestArchiveOddNames: a release archive whose directory name holds glob
// syntax and a line break is excluded by exactly that directory, and the
// config still loads (the name neither breaks the glob nor adds a key).
func TestArchiveOddNames(t *testing.T) {
	dir := "rel[eases\nonboarding: false {x}"
	fsys := fstest.MapFS{"relxeases/web.yaml": {Data: []byte(webManifest)}}
	for i := range 5 {
		fsys[fmt.Sprintf("%s/web-1.%d.0.yaml", dir, i)] = &fstest.MapFile{Data: fmt.Appendf(nil, "image: ghcr.io/acme/web:1.%d.0\n", i)}
	}
	res, err := Init(t.Context(), fsys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Check(".imagebot.yaml", res.Config)
	if err != nil {
		t.Fatalf("%v\n%s", err, res.Config)
	}
	if c.Included(dir+"/web-1.0.0.yaml") || !c.Included("relxeases/web.yaml") || !c.OnboardingOn() {
		t.Errorf("exclude %q: archive included %v, neighbour included %v, onboarding %v",
			c.Exclude, c.Included(dir+"/web-1.0.0.yaml"), c.Included("relxeases/web.yaml"), c.OnboardingOn())
	}
}
