package main

import (
	"fmt"
	"path"
	"strings"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/config"
)

// envAllowed says which environment variables a repository's config may
// name as a registry's passwordEnv. The config is the repository's, and
// whoever edits it must not be able to send the process's other secrets
// (another team's registry token in a serve fleet, a cloud key on a
// laptop running plan on a stranger's repository) to a host of their
// choosing. Without an operator's leave, a config may name:
//   - variables starting with IMAGEBOT_, the prefix an operator sets for
//     imagebot on purpose;
//   - the variable init names for the registry's own host
//     (REGISTRY_ACME_EXAMPLE_TOKEN for registry.acme.example), which then
//     goes to that host only.
//
// The operator allows more names or patterns (path.Match: REGISTRY_*) with
// --allow-env or IMAGEBOT_ALLOW_ENV (comma-separated). The forge's and the
// runner's own credentials (config.ForgeSecret) are never allowed; the
// config check already refuses them, file:line.
type envAllowed []string

// envAllowed is the operator's patterns: the flags and IMAGEBOT_ALLOW_ENV.
func (o *commonOptions) envAllowed() envAllowed {
	allowed := envAllowed(append([]string(nil), o.AllowEnv...))
	for _, p := range strings.Split(o.Env.AllowEnv, ",") {
		if p = strings.TrimSpace(p); p != "" {
			allowed = append(allowed, p)
		}
	}
	return allowed
}

// check refuses a variable the config may not name for host.
func (a envAllowed) check(name, host string) error {
	if config.ForgeSecret(name) {
		return fmt.Errorf("%s is the forge's own credential and never goes to a registry", name)
	}
	if strings.HasPrefix(name, "IMAGEBOT_") || name == adopt.TokenEnv(host) {
		return nil
	}
	for _, p := range a {
		if ok, _ := path.Match(p, name); ok {
			return nil
		}
	}
	return fmt.Errorf("the config may not name %s: without the operator's leave a config names only variables starting with IMAGEBOT_, "+
		"or %s for this registry; rename the variable, or let imagebot read it with --allow-env %s (or IMAGEBOT_ALLOW_ENV=%s)",
		name, adopt.TokenEnv(host), name, name)
}
