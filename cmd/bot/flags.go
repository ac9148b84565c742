package main

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flag values check themselves when parsed, so that a bad value fails
// before any work, with the flag's name and what it wants:
// "--log-level: want debug, info, warn or error, got "verbose"".

// choice is a flag whose value is one of a few words.
type choice struct {
	value   string
	options []string
}

func newChoice(def string, options ...string) *choice {
	return &choice{value: def, options: options}
}

func (c *choice) String() string { return c.value }
func (c *choice) Type() string   { return "string" }

func (c *choice) Set(v string) error {
	if !slices.Contains(c.options, v) {
		return fmt.Errorf("want %s, got %q", orList(c.options), v)
	}
	c.value = v
	return nil
}

// orList spells options as "a, b or c".
func orList(options []string) string {
	if len(options) < 2 {
		return strings.Join(options, "")
	}
	return strings.Join(options[:len(options)-1], ", ") + " or " + options[len(options)-1]
}

// count is a whole-number flag with a lower bound. Unset, it is 0, which
// the commands read as "the default" (the registry client's per-host one).
type count struct {
	n   int
	min int
}

func (c *count) String() string {
	if c.n == 0 {
		return ""
	}
	return strconv.Itoa(c.n)
}
func (c *count) Type() string { return "int" }

func (c *count) Set(v string) error {
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n < c.min {
		return fmt.Errorf("want a whole number of at least %d, got %q", c.min, v)
	}
	c.n = n
	return nil
}

// mirrorFlag collects repeated --mirror host=url flags.
type mirrorFlag map[string]string

func (m *mirrorFlag) String() string {
	if len(*m) == 0 {
		return ""
	}
	return fmt.Sprint(map[string]string(*m))
}
func (m *mirrorFlag) Type() string { return "host=url" }

func (m *mirrorFlag) Set(v string) error {
	host, u, ok := strings.Cut(v, "=")
	if !ok || host == "" {
		return fmt.Errorf("want host=url, got %q", v)
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		// The URL is not echoed: it may carry a password.
		return fmt.Errorf("mirror for %s: want an http:// or https:// URL (write http:// explicitly for a plain-http mirror)", host)
	}
	if p.User != nil {
		return fmt.Errorf("mirror for %s: credentials do not go in the URL; name them in .imagebot.yaml (registries.HOST.username and passwordEnv) or the Docker config", host)
	}
	if *m == nil {
		*m = mirrorFlag{}
	}
	(*m)[host] = u
	return nil
}

// flagError turns pflag's errors into ours: "--log-level: want ..." for a
// bad value rather than `invalid argument "verbose" for "--log-level" flag:`,
// and a usage error in every case.
func flagError(cmd *cobra.Command, err error) error {
	var invalid *pflag.InvalidValueError
	var unknown *pflag.NotExistError
	switch {
	case errors.As(err, &invalid):
		err = fmt.Errorf("--%s: %w", invalid.GetFlag().Name, invalid.Unwrap())
	case errors.As(err, &unknown) && len(unknown.GetSpecifiedShortnames()) > 1 && cmd.Flags().Lookup(unknown.GetSpecifiedShortnames()) != nil:
		// Go's flag package, which imagebot used before, took -repo too.
		err = fmt.Errorf("%w (a long flag takes two dashes: --%s)", err, unknown.GetSpecifiedShortnames())
	}
	return &usageError{err}
}
