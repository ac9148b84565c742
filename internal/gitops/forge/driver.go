package forge

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Opener connects a driver to the repository c names.
type Opener func(ctx context.Context, c Config) (Forge, error)

// GroupLister lists the clone URLs of a group's repositories on the host
// at c.APIURL (serve's --gitlab-group).
type GroupLister func(ctx context.Context, c Config, group string) ([]string, error)

// drivers are the hosts linked into the program, as database/sql keeps its
// drivers: each driver package registers itself when imported, so that the
// lifecycle and job open a host by its Kind without importing its SDK.
var drivers = struct {
	sync.Mutex
	open   map[Kind]Opener
	groups map[Kind]GroupLister
}{open: map[Kind]Opener{}, groups: map[Kind]GroupLister{}}

// appTokens makes a GitHub App's credentials outside a run (App.Token).
var appTokens func(ctx context.Context, a *App, apiURL, repository string) (Credentials, error)

// Register makes a driver the one for kind. A driver registers once, in
// its package's init; registering a kind twice is a programming error.
func Register(kind Kind, open Opener) {
	drivers.Lock()
	defer drivers.Unlock()
	if _, dup := drivers.open[kind]; dup {
		panic("forge: driver " + string(kind) + " registered twice")
	}
	drivers.open[kind] = open
}

// RegisterGroups makes list the way to list a group's repositories on kind.
func RegisterGroups(kind Kind, list GroupLister) {
	drivers.Lock()
	defer drivers.Unlock()
	drivers.groups[kind] = list
}

// RegisterAppTokens is how the GitHub driver makes an App's credentials
// for App.Token.
func RegisterAppTokens(newCreds func(ctx context.Context, a *App, apiURL, repository string) (Credentials, error)) {
	drivers.Lock()
	defer drivers.Unlock()
	appTokens = newCreds
}

// Open connects to the repository on the host kind names ("" is GitHub),
// through its registered driver.
func Open(ctx context.Context, kind Kind, c Config) (Forge, error) {
	if kind == "" {
		kind = GitHub
	}
	drivers.Lock()
	open := drivers.open[kind]
	drivers.Unlock()
	if open == nil {
		return nil, fmt.Errorf("--forge %q: want one of %s", kind, strings.Join(linked(), ", "))
	}
	return open(ctx, c)
}

// GroupProjects lists the clone URLs of group's repositories on kind.
func GroupProjects(ctx context.Context, kind Kind, c Config, group string) ([]string, error) {
	drivers.Lock()
	list := drivers.groups[kind]
	drivers.Unlock()
	if list == nil {
		return nil, fmt.Errorf("groups on %s: %w", kind, ErrNotSupported)
	}
	return list(ctx, c, group)
}

// linked are the kinds with a driver: Kinds' order, then any other sorted.
func linked() []string {
	drivers.Lock()
	defer drivers.Unlock()
	var out, more []string
	for _, k := range Kinds {
		if drivers.open[k] != nil {
			out = append(out, string(k))
		}
	}
	for k := range drivers.open {
		if !slices.Contains(Kinds, k) {
			more = append(more, string(k))
		}
	}
	slices.Sort(more)
	return append(out, more...)
}
