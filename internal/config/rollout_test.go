package config

import (
	"testing"
	"time"
)

func TestRollouts(t *testing.T) {
	c, err := Parse("f.yaml", []byte(`
groups:
  - name: openstack
    match: ["quay.io/openstack.kolla/**"]
    lockstep: true
  - name: kolla-all                  # later: never wins over openstack
    match: ["quay.io/openstack.kolla/*", "quay.io/kolla/*"]
environments:
  - name: staging
    paths: ["envs/staging/**"]
  - name: production
    paths: ["envs/production/**", "envs/prod-*/**"]
    promoteFrom: staging
    soak: 1d12h
prepull:
  match: ["ghcr.io/acme/**"]
  manifest: platform/prepull/daemonset.yaml
`))
	if err != nil {
		t.Fatal(err)
	}
	for image, want := range map[string]string{
		"quay.io/openstack.kolla/nova-api":        "openstack",
		"quay.io/openstack.kolla/ubuntu/nova-api": "openstack",
		"quay.io/kolla/keystone":                  "kolla-all",
		"quay.io/kolla/sub/keystone":              "",
		"docker.io/library/nginx":                 "",
	} {
		got := ""
		if g := c.GroupFor(image); g != nil {
			got = g.Name
		}
		if got != want {
			t.Errorf("GroupFor(%q) = %q, want %q", image, got, want)
		}
	}
	if g := c.GroupFor("quay.io/openstack.kolla/nova-api"); g != &c.Groups[0] || !g.Lockstep {
		t.Errorf("GroupFor does not return the config's own group: %+v", g)
	}

	for file, want := range map[string]string{
		"envs/staging/app.yaml":         "staging",
		"./envs/staging/a/b.yaml":       "staging",
		"envs/production/app.yaml":      "production",
		"envs/prod-eu/app.yaml":         "production",
		"envs/dev/app.yaml":             "",
		"../envs/staging/app.yaml":      "",
		"envs/staging/../dev/app.yaml":  "",
		"other/envs/staging/x.yaml":     "",
		"envs/production/../prod-x/y.y": "production",
	} {
		got := ""
		if e := c.EnvironmentFor(file); e != nil {
			got = e.Name
		}
		if got != want {
			t.Errorf("EnvironmentFor(%q) = %q, want %q", file, got, want)
		}
	}
	if e := c.EnvironmentFor("envs/production/x.yaml"); e.PromoteFrom != "staging" || time.Duration(e.Soak) != 36*time.Hour {
		t.Errorf("production = %+v", e)
	}

	if !c.Prepull.Matches("ghcr.io/acme/api") || c.Prepull.Matches("ghcr.io/other/api") {
		t.Errorf("Prepull.Matches does not follow match %q", c.Prepull.Match)
	}
	if c.Prepull.Namespace != DefaultPrepullNamespace || c.Prepull.Lead != DefaultPrepullLead {
		t.Errorf("prepull defaults: namespace %q, lead %v", c.Prepull.Namespace, c.Prepull.Lead)
	}
	// imagebot owns the pre-pull manifest: scanning it would propose the
	// images it pre-pulls as updates of themselves.
	if c.Included("platform/prepull/daemonset.yaml") || c.Included("./platform/prepull/daemonset.yaml") {
		t.Error("the pre-pull manifest is scanned")
	}
	if !c.Included("platform/prepull/other.yaml") {
		t.Error("a file next to the pre-pull manifest is not scanned")
	}

	var none *Prepull
	if Default().Prepull.Matches("ghcr.io/acme/api") || none.Matches("x") {
		t.Error("a config without prepull pre-pulls")
	}
	if Default().GroupFor("x.io/a") != nil || Default().EnvironmentFor("a.yaml") != nil {
		t.Error("the default config has groups or environments")
	}
}

func TestPrepullLead(t *testing.T) {
	for yaml, want := range map[string]Duration{
		"prepull: {match: [a.io/x], manifest: p.yaml}":           DefaultPrepullLead,
		"prepull: {match: [a.io/x], manifest: p.yaml, lead: 0}":  0, // explicit: no wait
		"prepull: {match: [a.io/x], manifest: p.yaml, lead: 2h}": Duration(2 * time.Hour),
	} {
		c, err := Parse("f.yaml", []byte(yaml))
		if err != nil {
			t.Fatalf("%s: %v", yaml, err)
		}
		if c.Prepull.Lead != want {
			t.Errorf("%s: lead = %v, want %v", yaml, c.Prepull.Lead, want)
		}
	}
	// An empty section is absent, as git: is.
	c, err := Parse("f.yaml", []byte("prepull:\n# match: [a.io/x]\n"))
	if err != nil || c.Prepull != nil {
		t.Errorf("empty prepull: %+v, %v", c.Prepull, err)
	}
}
