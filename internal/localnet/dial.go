package localnet

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrLocal is wrapped by the error of a dial that Guard refused.
var ErrLocal = errors.New("on this machine or its private network")

// DialError is a dial refused for the address a host name resolved to.
type DialError struct {
	Host string // as named, "host:port"
	Addr string // as resolved, "ip:port"
}

func (e *DialError) Error() string {
	return fmt.Sprintf("%s resolves to %s, %v, and the config does not name it, so it was not contacted", e.Host, e.Addr, ErrLocal)
}

func (e *DialError) Unwrap() error { return ErrLocal }

// Guard dials only what the config names or what is not local: the check
// is on the address actually dialled (a net.Dialer Control), after DNS,
// so that a name that resolves to this machine or its networks (a
// cluster's *.svc.cluster.local, metadata.google.internal, an /etc/hosts
// entry) is caught as surely as its spelling (Is) is. The hosts the
// config names, and the proxy the environment sets, are dialled wherever
// they resolve.
type Guard struct {
	allowed map[string]bool // "host:port", or "host" for its default ports
}

// NewGuard allows hosts ("host" for ports 80 and 443, or "host:port"),
// and the proxies of HTTPS_PROXY and HTTP_PROXY.
func NewGuard(hosts []string) *Guard {
	g := &Guard{allowed: map[string]bool{}}
	for _, h := range hosts {
		g.allowed[strings.ToLower(strings.TrimSuffix(h, "."))] = true
	}
	for _, v := range []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"} {
		if u, err := url.Parse(os.Getenv(v)); err == nil && u.Host != "" {
			g.allowed[strings.ToLower(u.Host)] = true
		}
	}
	return g
}

// Allows tells whether hostport ("host:port") is dialled wherever it
// resolves.
func (g *Guard) Allows(hostport string) bool {
	hp := strings.ToLower(hostport)
	if g.allowed[hp] {
		return true
	}
	h, port, err := net.SplitHostPort(hp)
	if err != nil {
		return false
	}
	return (port == "443" || port == "80") && g.allowed[strings.TrimSuffix(h, ".")]
}

type ctxKey int

const (
	vouchedKey ctxKey = iota
	resolverKey
)

// Vouch marks the dials of ctx's requests as allowed anywhere: they are on
// behalf of a host the config names (its token service, its redirect).
func Vouch(ctx context.Context) context.Context {
	return context.WithValue(ctx, vouchedKey, true)
}

// WithResolver has the guarded dials of ctx's requests resolve names with
// r: tests resolve names to local addresses without /etc/hosts.
func WithResolver(ctx context.Context, r *net.Resolver) context.Context {
	return context.WithValue(ctx, resolverKey, r)
}

// DialContext dials as d does (nil: net/http's default dialer), refusing
// with a *DialError an address of this machine or its networks for a
// host g does not allow. Nothing is sent to a refused address: the
// Control runs before the connection is made.
func (g *Guard) DialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if d == nil {
		d = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		dd := *d
		if r, ok := ctx.Value(resolverKey).(*net.Resolver); ok {
			dd.Resolver = r
		}
		if v, _ := ctx.Value(vouchedKey).(bool); v || g.Allows(addr) {
			return dd.DialContext(ctx, network, addr)
		}
		next := d.Control
		dd.Control = func(network, address string, c syscall.RawConn) error {
			if ap, err := netip.ParseAddrPort(address); err != nil || IsAddr(ap.Addr()) {
				return &DialError{Host: addr, Addr: address}
			}
			if next != nil {
				return next(network, address, c)
			}
			return nil
		}
		return dd.DialContext(ctx, network, addr)
	}
}

// transports are the guarded clones Transport made, by base and allowed
// hosts: runs with one config share their connections, and a connection
// one config allowed is never reused under another.
var transports sync.Map // transportKey -> *http.Transport

type transportKey struct {
	base    *http.Transport
	allowed string
}

// Transport is a clone of base that dials through g, one per base and
// set of allowed hosts for the process.
func (g *Guard) Transport(base *http.Transport) *http.Transport {
	hosts := slices.Sorted(maps.Keys(g.allowed))
	k := transportKey{base, strings.Join(hosts, " ")}
	if t, ok := transports.Load(k); ok {
		return t.(*http.Transport)
	}
	t := base.Clone()
	t.DialContext = g.DialContext(nil)
	actual, _ := transports.LoadOrStore(k, t)
	return actual.(*http.Transport)
}
