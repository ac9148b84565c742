package registry

import (
	"errors"
	"fmt"

	"github.com/imagebot/imagebot/internal/localnet"
)

// ErrLocalHost is wrapped by the errors of lookups on a local registry host
// that WithLocalHosts does not allow.
var ErrLocalHost = errors.New("local registry host not allowed")

// localAllowed is the set of local hosts WithLocalHosts allows, by
// canonical host, with the mirrors' hosts added: a mirror URL is written on
// purpose, by the config or a flag.
func (c *Client) localAllowed() map[string]bool {
	allowed := map[string]bool{}
	for _, h := range c.o.localHosts {
		allowed[canonicalHost(h)] = true
	}
	for _, m := range c.mirrors {
		if m.err == nil {
			allowed[m.host] = true
		}
	}
	return allowed
}

// checkLocal refuses a local host that is not allowed.
func (c *Client) checkLocal(host, registry string) error {
	if !c.o.guardLocal || !localnet.Is(host) || c.allowedLocal[host] {
		return nil
	}
	return fmt.Errorf("registry %s is on this machine or its private network and is named only in a manifest, so it was not contacted: "+
		"if it is yours, name it in the config (registries: {%q: {}}) or give %s a mirror: %w", host, registry, registry, ErrLocalHost)
}
