// Package deps pins the modules the project builds on while the packages
// that use them are written. Remove once every import below is real.
package deps

import (
	_ "github.com/Masterminds/semver/v3"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/go-git/go-git/v5"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/google/go-containerregistry/pkg/registry"
	_ "github.com/google/go-containerregistry/pkg/v1/remote"
	_ "github.com/google/go-containerregistry/pkg/authn"
	_ "github.com/google/go-github/v60/github"
	_ "github.com/hashicorp/go-retryablehttp"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/robfig/cron/v3"
	_ "github.com/rogpeppe/go-internal/testscript"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/sync/singleflight"
	_ "sigs.k8s.io/kustomize/kyaml/yaml"
)
