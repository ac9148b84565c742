package job

import (
	"fmt"
	"log/slog"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/imagebot/imagebot/internal/adopt"
	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/registry"
)

// registryOptions configure the registry client from the config and the
// flags: mirrors (flags win), credentials, how many requests at once and
// how many in all.
func registryOptions(o *Options, cfg *config.Config, log *slog.Logger) ([]registry.Option, map[string]registry.Credentials, error) {
	mirrors := cfg.Mirrors()
	for h, u := range o.Registry.Mirrors {
		mirrors[h] = u
	}
	concurrency, budgets := map[string]int{}, map[string]int{}
	for host, r := range cfg.Registries {
		if strings.Contains(host, "/") {
			continue // a chart repository prefix, not a registry
		}
		if r.Concurrency > 0 {
			concurrency[host] = r.Concurrency
		}
		if r.MaxRequests > 0 {
			budgets[host] = r.MaxRequests
		}
	}
	creds, err := credentials(cfg, mirrors, o.Registry, log)
	if err != nil {
		return nil, nil, err
	}
	return []registry.Option{
		registry.WithMirrors(mirrors),
		registry.WithCredentials(creds),
		registry.WithKeychain(adopt.Keychain),
		// Hosts on this machine or its networks are contacted only when
		// the config names them (or a mirror is there), never because a
		// manifest does.
		registry.WithLocalHosts(configHosts(cfg)),
		// The flags are for every host; the config's entries, for one.
		registry.WithConcurrency(o.Registry.Concurrency),
		registry.WithHostConcurrency(concurrency),
		registry.WithMaxRequests(o.Registry.MaxRequests),
		registry.WithHostMaxRequests(budgets),
		registry.WithLogger(log),
	}, creds, nil
}

// credentials maps the host actually contacted (the mirror's, when the
// config's entry names that mirror) to the credentials the config names
// for it; a mirror set by --mirror gets only what an entry for its own host
// gives. Secrets come from the environment only; the config holds variable
// names. A named variable that is unset is said out loud: the host is then
// contacted with what the keychain has for it, which is often nothing. A
// variable the config may not name (allowed) fails the run before
// anything is sent.
func credentials(cfg *config.Config, mirrors map[string]string, rs Registry, log *slog.Logger) (map[string]registry.Credentials, error) {
	creds := map[string]registry.Credentials{}
	for _, host := range slices.Sorted(maps.Keys(cfg.Registries)) {
		r := cfg.Registries[host]
		if r.Username == "" && r.PasswordEnv == "" {
			continue
		}
		if r.PasswordEnv != "" {
			if err := allowed(rs.AllowEnv, r.PasswordEnv, config.Host(host)); err != nil {
				return nil, fmt.Errorf("%s: registries.%s.passwordEnv: %w", configLine(cfg, r.PasswordEnvLine), host, err)
			}
		}
		contacted := host
		if strings.Contains(host, "/") {
			// A chart repository prefix: its credentials are its
			// mirror's (the config requires one), for the mirror's host
			// only.
			if u, err := url.Parse(r.Mirror); err == nil {
				contacted = u.Host
			}
		} else if m, ok := mirrors[host]; ok {
			if m != r.Mirror {
				// A --mirror flag put another host in front of this
				// registry: the entry's credentials are the registry's,
				// and the mirror is not that registry.
				log.Warn("registry credentials: "+host+" is fetched from a mirror that --mirror set, and its credentials are not sent there; "+
					"give the mirror's host an entry of its own (registries.MIRRORHOST.username and passwordEnv) if it needs them",
					"config", configName(cfg), "registry", host)
				continue
			}
			if u, err := url.Parse(m); err == nil {
				contacted = u.Host
			}
		}
		password, ok := "", true
		if r.PasswordEnv != "" {
			password, ok = lookupEnv(rs.LookupEnv, r.PasswordEnv)
		}
		if !ok || (r.PasswordEnv != "" && password == "") {
			log.Warn("registry credentials: the variable that passwordEnv names is not set, so "+host+
				" is contacted without them (with the Docker config's credentials, if any, else anonymously); export it, or remove passwordEnv",
				"config", configName(cfg), "registry", host, "passwordEnv", r.PasswordEnv)
			continue
		}
		creds[contacted] = registry.Credentials{Username: r.Username, Password: password, Env: r.PasswordEnv}
	}
	return creds, nil
}

// configHosts are the hosts the config names under registries: (a chart
// repository prefix names its host): those on this machine or its
// networks may be contacted.
func configHosts(cfg *config.Config) []string {
	var hosts []string
	for key := range cfg.Registries {
		if h := config.Host(key); !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	return hosts
}

// lookupEnv reads a variable the config names; a nil lookup has none.
func lookupEnv(lookup func(string) (string, bool), name string) (string, bool) {
	if lookup == nil {
		return "", false
	}
	return lookup(name)
}

// allowed refuses a variable the config may not name as host's
// passwordEnv. The config is the repository's, and whoever edits it must
// not be able to send the process's other secrets (another team's
// registry token in a serve fleet, a cloud key on a laptop running plan on
// a stranger's repository) to a host of their choosing. Without an
// operator's leave, a config may name what adopt.ConfigMayName says: the
// names init writes (IMAGEBOT_*, or adopt.TokenEnv for the registry's own
// host). The operator allows more names or patterns (path.Match:
// REGISTRY_*) with --allow-env or IMAGEBOT_ALLOW_ENV. The forge's and the runner's
// own credentials (config.ForgeSecret) are never allowed; the config check
// already refuses them, file:line.
func allowed(patterns []string, name, host string) error {
	if config.ForgeSecret(name) {
		return fmt.Errorf("%s is the forge's own credential and never goes to a registry", name)
	}
	if adopt.ConfigMayName(name, host) {
		return nil
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return nil
		}
	}
	return fmt.Errorf("the config may not name %s: without the operator's leave a config names only variables starting with IMAGEBOT_, "+
		"or %s for this registry; rename the variable, or let imagebot read it with --allow-env %s (or IMAGEBOT_ALLOW_ENV=%s)",
		name, adopt.TokenEnv(host), name, name)
}

// configLine is file:line for messages.
func configLine(cfg *config.Config, line int) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d", configName(cfg), line)
	}
	return configName(cfg)
}

// configName is the config file for messages; "defaults" when there is none.
func configName(cfg *config.Config) string {
	if cfg.File == "" {
		return "defaults"
	}
	return cfg.File
}
