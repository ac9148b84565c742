package main

import (
	"io"
	"log/slog"

	"github.com/spf13/pflag"
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
	LogLevel    *choice
	LogFormat   *choice
	Verbose     bool
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
	}
}

func (o *commonOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Repo, "repo", ".", "repository `DIR`, the same as the DIR argument")
	fs.StringVarP(&o.Config, "config", "c", "", "config `FILE`: a path in the repository, or an absolute path (default .imagebot.yaml)")
	fs.Var(&o.Concurrency, "concurrency", "registry requests in flight per host, at least 1 (default 8, 4 for quay.io; registries.HOST.concurrency in the config for one host)")
	fs.Var(&o.MaxRequests, "max-requests", "requests a run may send to each registry host, retries included; once spent, that host's lookups fail (default 0: no cap; registries.HOST.maxRequests in the config for one host)")
	fs.Var(&o.Mirrors, "mirror", "mirror for a registry host, overriding the config; repeatable (e.g. docker.io=https://mirror.example.com)")
	fs.Var(o.LogLevel, "log-level", "debug, info, warn or error")
	fs.Var(o.LogFormat, "log-format", "text or json")
	fs.BoolVarP(&o.Verbose, "verbose", "v", false, "list every reference left alone, and why")
}

// logger writes to stderr at the chosen level and format; both were
// checked when the flags were parsed.
func (o *commonOptions) logger() *slog.Logger {
	hopts := &slog.HandlerOptions{Level: logLevels[o.LogLevel.value]}
	if o.LogFormat.value == "json" {
		return slog.New(slog.NewJSONHandler(o.IO.ErrOut, hopts))
	}
	return slog.New(slog.NewTextHandler(o.IO.ErrOut, hopts))
}

var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
}
