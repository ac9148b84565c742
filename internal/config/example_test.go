package config_test

import (
	"errors"
	"fmt"

	"github.com/imagebot/imagebot/internal/config"
)

func ExampleParse() {
	_, err := config.Parse(".imagebot.yaml", []byte(`
policies:
  - match: ghcr.io/acme/api
    alow: minor
  - match: ghcr.io/acme/worker
    skip: yes
`))
	var errs *config.Errors
	if errors.As(err, &errs) {
		for _, e := range *errs {
			fmt.Println(e)
		}
	}
	// Output:
	// .imagebot.yaml:4:5: unknown key "alow" (did you mean "allow"?)
	// .imagebot.yaml:6:11: "skip" must be a boolean, got string "yes" (use true or false)
}

func ExampleConfig_For() {
	c, _ := config.Parse(".imagebot.yaml", []byte(`
policies:
  - match: docker.io/library/*
    allow: minor
  - match: docker.io/library/node
    versioning: semver
    range: "<21"
`))
	r := c.For("docker.io/library/node", "apps/web.yaml")
	fmt.Println(r.Allow, r.Versioning, r.Range)
	// Output: minor semver <21
}

// Labels and reviewers add up over the matching policies; an empty list
// clears them.
func ExampleConfig_For_labels() {
	c, _ := config.Parse(".imagebot.yaml", []byte(`
pullRequests:
  labels: [dependencies]
policies:
  - match: ghcr.io/acme/**
    labels: [team-acme]
  - match: ghcr.io/acme/api
    labels: [api, dependencies]
  - match: ghcr.io/acme/sandbox
    labels: []
`))
	fmt.Println(c.For("ghcr.io/acme/api", "apps/web.yaml").Labels)
	fmt.Println(c.For("ghcr.io/acme/sandbox", "apps/web.yaml").Labels)
	fmt.Println(c.For("docker.io/library/nginx", "apps/web.yaml").Labels)
	// Output:
	// [dependencies team-acme api]
	// []
	// [dependencies]
}

// A policy with paths applies to the references in those files only: here
// production follows releases while dev follows CI builds of the same
// image.
func ExampleConfig_For_paths() {
	c, _ := config.Parse(".imagebot.yaml", []byte(`
policies:
  - match: ghcr.io/acme/api
    versioning: semver
  - match: ghcr.io/acme/api
    paths: ["envs/dev/**"]
    versioning: numeric
    pattern: '^main-(?P<version>\d+)-[0-9a-f]+$'
`))
	fmt.Println(c.For("ghcr.io/acme/api", "envs/prod/api.yaml").Versioning)
	fmt.Println(c.For("ghcr.io/acme/api", "envs/dev/api.yaml").Versioning)
	// Output:
	// semver
	// numeric
}
