// Package dnstest is a DNS server in memory for tests: a *net.Resolver
// (Go's own resolver, asking a server that answers from a table) that
// resolves chosen names to chosen addresses, as /etc/hosts or a cluster's
// DNS would, without touching either.
package dnstest

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/netip"
	"strings"

	"golang.org/x/net/dns/dnsmessage"
)

// Resolver resolves each name of names ("charts.corp.test") to its
// address ("127.0.0.1", "::1"), and answers that any other name does not
// exist.
func Resolver(names map[string]string) *net.Resolver {
	table := map[string]netip.Addr{}
	for n, a := range names {
		table[strings.ToLower(strings.TrimSuffix(n, "."))+"."] = netip.MustParseAddr(a)
	}
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			client, server := net.Pipe()
			go serve(server, table)
			return client, nil
		},
	}
}

// serve answers the queries on one connection, in DNS over TCP's framing
// (a length before each message), which Go's resolver speaks on a
// connection that is no net.PacketConn.
func serve(c net.Conn, table map[string]netip.Addr) {
	defer c.Close()
	for {
		var n [2]byte
		if _, err := io.ReadFull(c, n[:]); err != nil {
			return
		}
		q := make([]byte, binary.BigEndian.Uint16(n[:]))
		if _, err := io.ReadFull(c, q); err != nil {
			return
		}
		ans, err := answer(q, table)
		if err != nil {
			return
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(ans)))
		if _, err := c.Write(append(out, ans...)); err != nil {
			return
		}
	}
}

func answer(query []byte, table map[string]netip.Addr) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	addr, known := table[strings.ToLower(q.Name.String())]
	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.EnableCompression()
	if err := b.StartQuestions(); err != nil {
		return nil, err
	}
	if err := b.Question(q); err != nil {
		return nil, err
	}
	if err := b.StartAnswers(); err != nil {
		return nil, err
	}
	rr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}
	switch {
	case known && q.Type == dnsmessage.TypeA && addr.Is4():
		err = b.AResource(rr, dnsmessage.AResource{A: addr.As4()})
	case known && q.Type == dnsmessage.TypeAAAA && addr.Is6():
		err = b.AAAAResource(rr, dnsmessage.AAAAResource{AAAA: addr.As16()})
	}
	if err != nil {
		return nil, err
	}
	return b.Finish()
}
