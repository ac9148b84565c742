package registrytest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// InMemory serves over an in-memory network (net.Pipe) instead of a TCP
// socket. A test inside a testing/synctest bubble needs it: a goroutine
// blocked on a pipe is durably blocked, so the bubble's clock can jump over
// a hanging registry, while one blocked on a socket is not and would stall
// the bubble. Reach such a server through Transport; its Host is
// "regN.test:5000" and resolves nowhere else.
func InMemory() Option { return func(s *Server) { s.inMemory = true } }

var memHosts atomic.Int64

// pipeListener hands the server ends of net.Pipe connections to an
// http.Server.
type pipeListener struct {
	addr   pipeAddr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

type pipeAddr string

func (a pipeAddr) Network() string { return "pipe" }
func (a pipeAddr) String() string  { return string(a) }

func newPipeListener() *pipeListener {
	host := fmt.Sprintf("reg%d.test:5000", memHosts.Add(1))
	return &pipeListener{addr: pipeAddr(host), conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return l.addr }

func (l *pipeListener) dial(ctx context.Context) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.closed:
		return nil, errors.New("registrytest: server closed")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Transport returns a transport that reaches every server given by its
// Host, in memory for InMemory servers and over TCP for the others. Its
// idle connections are closed when the test ends, so that a synctest
// bubble has no goroutine left behind.
func Transport(servers ...*Server) *http.Transport {
	byHost := map[string]*Server{}
	for _, s := range servers {
		byHost[s.Host()] = s
	}
	var d net.Dialer
	t := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if s, ok := byHost[addr]; ok && s.mem != nil {
				return s.mem.dial(ctx)
			}
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConnsPerHost: 64,
		ForceAttemptHTTP2:   false,
	}
	for _, s := range servers {
		s.addCleanup(t.CloseIdleConnections)
	}
	return t
}
