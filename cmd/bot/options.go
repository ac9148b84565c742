package main

import (
	"io"
	"log/slog"

	"github.com/spf13/pflag"

	"github.com/imagebot/imagebot/internal/secret"
)

// iostreams are where a command writes: results to Out, logs, progress and
// errors to ErrOut.
type iostreams struct{ Out, ErrOut io.Writer }

// factory is what every command gets from the process: its streams and its
// environment, read once (cli/cli's cmdutil.Factory).
type factory struct {
	IO  iostreams
	Env environ
}

// commonOptions are the flags every command that plans shares, and what
// the process gave it.
type commonOptions struct {
	IO  iostreams
	Env environ

	Repo        string
	Config      string
	Concurrency count
	MaxRequests count
	Mirrors     mirrorFlag
	AllowEnv    []string // --allow-env: variables a config's passwordEnv may name
	LogLevel    *choice
	LogFormat   *choice
	Verbose     bool
	Cache       cacheOptions
	// Forge and ForgeURL are --forge and --forge-url, of the commands
	// that talk to the git host (bindForge).
	Forge    *choice
	ForgeURL string
}

func newCommonOptions(f *factory) commonOptions {
	return commonOptions{
		IO:          f.IO,
		Env:         f.Env,
		Repo:        ".",
		Concurrency: count{min: 1},
		MaxRequests: count{min: 0},
		LogLevel:    newChoice("info", "debug", "info", "warn", "error"),
		LogFormat:   newChoice("text", "text", "json"),
		Cache:       newCacheOptions(),
		Forge:       newChoice("", "github", "gitlab", "gitea", "bitbucket", "bitbucket-server", "azure"),
	}
}

// bindForge binds the flags of the commands that talk to the git host:
// run, rollback and serve.
func (o *commonOptions) bindForge(fs *pflag.FlagSet) {
	fs.Var(o.Forge, "forge", "the git host `KIND`: github, gitlab, gitea (Forgejo too), bitbucket (Cloud), bitbucket-server (Data Center) or azure (Azure DevOps); default: from the CI environment, the token variables and origin's URL")
	fs.StringVar(&o.ForgeURL, "forge-url", "", "the git host's `URL`, for a self-hosted one (GitHub Enterprise: https://github.example.com, whose API is URL/api/v3 unless GITHUB_API_URL says otherwise)")
}

func (o *commonOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", ".", "the repository `DIR`, as the DIR argument")
	fs.StringVarP(&o.Config, "config", "c", "", "the config `FILE`: a path in the repository, or an absolute path (default .imagebot.yaml)")
	fs.Var(&o.Concurrency, "concurrency", "at most `N` registry requests in flight per host (default 8, 4 for quay.io; registries.HOST.concurrency in the config for one host)")
	fs.Var(&o.MaxRequests, "max-requests", "at most `N` requests per registry host and run, retries included; once spent, that host's lookups fail (default: no cap; registries.HOST.maxRequests in the config for one host)")
	fs.Var(&o.Mirrors, "mirror", "fetch from mirror `HOST=URL` instead of registry HOST, overriding the config; repeatable (docker.io=https://mirror.example.com)")
	fs.StringArrayVar(&o.AllowEnv, "allow-env", nil, "let the config's registries.HOST.passwordEnv name the variable `NAME` (a pattern such as 'REGISTRY_*'); repeatable. Without it, only IMAGEBOT_* and HOST_TOKEN for the registry's own host (see IMAGEBOT_ALLOW_ENV)")
	fs.Var(o.LogLevel, "log-level", "log `LEVEL`: debug, info, warn or error")
	fs.Var(o.LogFormat, "log-format", "log `FORMAT`: text or json")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "list every reference left alone, and why")
	o.Cache.bind(fs)
}

// logger writes to stderr at the chosen level and format; both were
// checked when the flags were parsed. Whatever it writes is scrubbed of
// anything shaped like a credential.
func (o *commonOptions) logger() *slog.Logger {
	hopts := &slog.HandlerOptions{Level: logLevels[o.LogLevel.value], ReplaceAttr: secret.ReplaceAttr}
	if o.LogFormat.value == "json" {
		return slog.New(slog.NewJSONHandler(o.IO.ErrOut, hopts))
	}
	return slog.New(slog.NewTextHandler(o.IO.ErrOut, hopts))
}

var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}
