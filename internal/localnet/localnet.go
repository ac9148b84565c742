// Package localnet tells the hosts that name this machine or its own
// networks, which imagebot contacts only when the operator's config names
// them, never because a scanned file does (a manifest naming
// 169.254.169.254 or localhost:8080 must not make the bot probe them).
// The registry client and internal/fetch (under the chart repository and
// git clients) guard with it.
package localnet

import (
	"net"
	"net/netip"
	"strings"
)

// sharedAddrs is RFC 6598's shared address space (carrier-grade NAT), where
// some clouds serve their metadata (100.100.100.200).
var sharedAddrs = netip.MustParsePrefix("100.64.0.0/10")

// Is tells the hosts ("host" or "host:port") that name this machine or its
// own networks: localhost, and loopback, link-local, private, shared or
// unspecified addresses. A name that resolves to one is caught when it is
// dialled (Guard), not here.
func Is(hostport string) bool {
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
	return IsAddr(ip)
}

// IsAddr tells the addresses of this machine or its own networks:
// loopback, link-local, private, shared or unspecified.
func IsAddr(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsPrivate() ||
		ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() || sharedAddrs.Contains(ip)
}
