package main

import (
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/imagebot/imagebot/internal/config"
	"github.com/imagebot/imagebot/internal/job"
	"github.com/imagebot/imagebot/internal/serve"
)

// hookFlags are serve's push hook flags: the variable that holds the
// shared secret, and the OIDC issuers whose tokens are accepted.
type hookFlags struct {
	SecretEnv string
	OIDC      []string // ISSUER=AUDIENCE
}

func (h *hookFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&h.SecretEnv, "hook-secret-env", "", "accept push notifications at POST /hooks/KIND, authenticated with the secret in the environment variable `NAME` (see docs/serve.md)")
	fs.StringArrayVar(&h.OIDC, "hook-oidc", nil, "accept OIDC tokens from `ISSUER=AUDIENCE` at POST /hooks/generic; the claims they must carry are hooks.oidc in --config (repeatable)")
}

// hookOptions reads the secret and pairs each --hook-oidc with its
// claims in serve's config (hooks.oidc); an issuer without an entry there
// is refused, since its every token would be accepted.
func (o *serveOptions) hookOptions() (serve.HookOptions, error) {
	var h serve.HookOptions
	if o.Once && (o.Hooks.SecretEnv != "" || len(o.Hooks.OIDC) > 0) {
		return h, usagef("--hook-secret-env and --hook-oidc take notifications over HTTP, which --once does not serve")
	}
	if n := o.Hooks.SecretEnv; n != "" {
		v, ok := o.Env.Lookup(n)
		if !ok || v == "" {
			return h, usagef("--hook-secret-env %s: the variable is not set or empty", n)
		}
		h.Secret = []byte(v)
	}
	if len(o.Hooks.OIDC) == 0 {
		return h, nil
	}
	cfg, err := o.hookConfig()
	if err != nil {
		return h, err
	}
	for _, f := range o.Hooks.OIDC {
		iss, aud, ok := strings.Cut(f, "=")
		if !ok || !strings.HasPrefix(iss, "https://") || aud == "" {
			return h, usagef("--hook-oidc %q: want ISSUER=AUDIENCE, the issuer an https URL", f)
		}
		var claims map[string]string
		for _, e := range cfg.Hooks.OIDC {
			if e.Issuer == iss && (e.Audience == "" || e.Audience == aud) {
				claims = e.Claims
			}
		}
		if len(claims) == 0 {
			return h, usagef("--hook-oidc %s: hooks.oidc in --config names no claims for this issuer: without them, any job the issuer serves could notify", iss)
		}
		h.OIDC = append(h.OIDC, serve.OIDCIssuer{Issuer: iss, Audience: aud, Claims: claims})
	}
	return h, nil
}

// hookConfig is serve's own config: --config, absolute, or DIR's.
func (o *serveOptions) hookConfig() (*config.Config, error) {
	switch {
	case o.Config != "" && filepath.IsAbs(o.Config):
		return config.Load(o.Config)
	case len(o.Clones) == 0 && len(o.GitLabGroups) == 0:
		return job.LoadConfig(o.Repo, o.Config)
	}
	return nil, usagef("--hook-oidc with --clone needs an absolute --config holding hooks.oidc: the repositories' configs are not serve's")
}
