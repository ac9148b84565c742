package registry

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrLocalHost is wrapped by the errors of lookups on a local registry host
// that WithLocalHosts does not allow.
var ErrLocalHost = errors.New("local registry host not allowed")

// sharedAddrs is RFC 6598's shared address space (carrier-grade NAT), where
// some clouds serve their metadata (100.100.100.200).
var sharedAddrs = netip.MustParsePrefix("100.64.0.0/10")

// isLocal tells the hosts that name this machine or its own networks:
// localhost, and loopback, link-local, private, shared or unspecified
// addresses. A name that resolves to one is not caught here: the
// guard is on what a manifest can write, not on DNS.
func isLocal(hostport string) bool {
	h := hostport
	if sh, _, err := net.SplitHostPort(hostport); err == nil {
		h = sh
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsPrivate() ||
		ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() || sharedAddrs.Contains(ip)
}

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
	if !c.o.guardLocal || !isLocal(host) || c.allowedLocal[host] {
		return nil
	}
	return fmt.Errorf("registry %s is on this machine or its private network and is named only in a manifest, so it was not contacted: "+
		"if it is yours, name it in the config (registries: {%q: {}}) or give %s a mirror: %w", host, registry, registry, ErrLocalHost)
}
