package adopt

import (
	"net"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/authn/github"

	"github.com/imagebot/imagebot/internal/config"
)

// Which environment variable holds a registry's token is decided here
// alone: init writes these names into the configs and workflows it
// proposes, and the run (internal/job) accepts them and offers the
// runner's token by asking, so that what init proposes always works.

// TokenEnv is the variable a host's token would live in, as init names it
// and as a config may name it without an operator's leave (ConfigMayName):
// registry.acme.example -> REGISTRY_ACME_EXAMPLE_TOKEN. It is a valid
// environment variable and GitHub Actions secret name: [A-Z0-9_], no
// leading digit (an IP address: 10.0.0.5 -> REGISTRY_10_0_0_5_TOKEN),
// not starting with GITHUB_, which Actions keeps for itself, and never a
// forge's or the runner's own variable (config.ForgeSecret: a registry
// "gitlab:5000" or "bitbucket" gets REGISTRY_GITLAB_TOKEN or
// REGISTRY_BITBUCKET_TOKEN, not the bot's own token).
func TokenEnv(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	var b strings.Builder
	for _, r := range strings.ToUpper(host) {
		if (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" || (name[0] >= '0' && name[0] <= '9') || strings.HasPrefix(name, "GITHUB_") {
		name = "REGISTRY_" + name
	}
	name = strings.TrimSuffix(name, "_") + "_TOKEN"
	if config.ForgeSecret(name) {
		name = "REGISTRY_" + name
	}
	return name
}

// ConfigMayName says whether a config may name the variable as host's
// passwordEnv without an operator's leave: a variable starting with
// IMAGEBOT_, the prefix an operator sets for imagebot on purpose, or the
// one TokenEnv names for the registry's own host (which then goes to that
// host only). Everything else a repository's config names could send the
// process's other secrets to a host of the config's choosing; the run asks
// the operator for those (--allow-env).
func ConfigMayName(name, host string) bool {
	if config.ForgeSecret(name) {
		return false // IMAGEBOT_APP_PRIVATE_KEY is the forge's, whatever its prefix
	}
	return strings.HasPrefix(name, "IMAGEBOT_") || name == TokenEnv(host)
}

// runnerHost is the registry that takes the CI runner's own token with no
// entry in the config: GitHub's, with the workflow's GITHUB_TOKEN (the
// workflow init writes grants it `packages: read`). go-containerregistry's
// GitHub keychain reads the variable; Keychain offers it to this host alone.
const runnerHost, runnerToken = "ghcr.io", "GITHUB_TOKEN"

// RunnerToken is the variable holding the CI runner's own token that host
// (with or without a port) takes without configuration, or "" for a host
// that takes none.
func RunnerToken(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if host == runnerHost {
		return runnerToken
	}
	return ""
}

// Keychain answers for the hosts the config gives no credentials for. The
// Docker config (~/.docker/config.json or $DOCKER_CONFIG: `docker login`,
// docker/login-action, and credHelpers such as docker-credential-ecr-login,
// -gcloud or -acr-env for cloud registries) comes first; then, for the
// host RunnerToken names alone, the runner's token, so that a repository's
// own packages need no configuration in GitHub Actions. Each keychain
// answers only for the host it is asked about, so no credential reaches
// another host.
var Keychain = authn.NewMultiKeychain(authn.DefaultKeychain, runnerKeychain{})

// runnerKeychain hands the resource to the GitHub keychain only for the
// host that RunnerToken names, so that the rule stays RunnerToken's even
// if the library's ever widens.
type runnerKeychain struct{}

func (runnerKeychain) Resolve(r authn.Resource) (authn.Authenticator, error) {
	if RunnerToken(r.RegistryStr()) != runnerToken {
		return authn.Anonymous, nil
	}
	return github.Keychain.Resolve(r)
}
