package config

import (
	"strings"
	"testing"
)

func TestClusters(t *testing.T) {
	c, err := Parse("f.yaml", []byte(`
clusters:
  - name: prod
    context: prod-eu
    paths: ["envs/prod/**"]
    namespaces: [web, api]
  - name: staging
    paths: ["envs/staging/**"]
drift:
  restart: ["ghcr.io/acme/**"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Clusters) != 2 || c.Clusters[0].Context != "prod-eu" || len(c.Clusters[0].Namespaces) != 2 {
		t.Fatalf("clusters = %+v", c.Clusters)
	}
	if !c.Clusters[0].Runs("envs/prod/web/deploy.yaml") || c.Clusters[0].Runs("envs/staging/web.yaml") {
		t.Error("Runs does not follow paths")
	}
	if !c.Drift.RestartFor("ghcr.io/acme/api") || c.Drift.RestartFor("docker.io/library/nginx") {
		t.Error("RestartFor does not follow drift.restart")
	}
	var none *Drift
	if none.RestartFor("ghcr.io/acme/api") {
		t.Error("no drift key restarts something")
	}
}

func TestClustersInvalid(t *testing.T) {
	_, err := Parse("f.yaml", []byte(`
clusters:
  - name: prod
    paths: ["/abs/**"]
    namespaces: [Web, web, web]
  - name: prod
    paths: ["envs/**"]
  - context: x
drift:
  restart: [""]
`))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`f.yaml:4:`, `"paths[0]" must be relative`,
		`"namespaces[0]" must be a namespace name`, `"namespaces[2]" repeats "web"`,
		`cluster "prod" is named twice (first at line 3)`,
		`cluster needs a "name"`, `cluster needs "paths"`,
		`"restart[0]"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
