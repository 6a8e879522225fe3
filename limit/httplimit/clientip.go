package httplimit

import (
	"net"
	"net/netip"
	"strings"
)

// clientAddr finds the client address of a request from its peer address
// (http.Request.RemoteAddr) and its X-Forwarded-For header values, in the
// order received.
//
// Without trusted proxies, or when the peer is not one, the client is the
// peer. Otherwise the hops of X-Forwarded-For (every header line, in order,
// as one comma-separated list) are read right to left, skipping trusted
// addresses: the first untrusted one is the client. Each proxy appends the
// address it received the request from, so the hops to the right of the
// first untrusted one were written by proxies we trust and that hop is the
// address our nearest untrusted party connected from. Everything to its left
// was written by that party, typically the client itself, and can be
// anything: the left-most hop is what a client forges to spread its
// requests over fresh keys.
//
// Empty hops are skipped. A hop that is not an address (with or without a
// port) stops the walk and the client is the trusted proxy that wrote it.
// When every hop is trusted, the client is the left-most one.
//
// ok is false when there is no address at all (an empty RemoteAddr); then raw
// is empty too. When the peer address does not parse (a Unix socket, say)
// addr is invalid and raw is the peer as given, without a port.
func clientAddr(remoteAddr string, xff []string, trusted []netip.Prefix) (addr netip.Addr, raw string, ok bool) {
	host := remoteAddr
	if h, _, err := net.SplitHostPort(remoteAddr); err == nil {
		host = h
	}
	if host == "" {
		return netip.Addr{}, "", false
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, host, true
	}
	peer = peer.Unmap()
	if !isTrusted(peer, trusted) {
		return peer, "", true
	}
	client := peer
	for i := len(xff) - 1; i >= 0; i-- {
		line := xff[i]
		for line != "" {
			var hop string
			if j := strings.LastIndexByte(line, ','); j >= 0 {
				hop, line = line[j+1:], line[:j]
			} else {
				hop, line = line, ""
			}
			hop = strings.TrimSpace(hop)
			if hop == "" {
				continue
			}
			a, ok := parseHop(hop)
			if !ok {
				return client, "", true
			}
			if !isTrusted(a, trusted) {
				return a, "", true
			}
			client = a
		}
	}
	return client, "", true
}

// parseHop reads one X-Forwarded-For element: an IPv4 or IPv6 address,
// optionally with a port ("192.0.2.1:80", "[2001:db8::1]:80") or in brackets
// ("[2001:db8::1]").
func parseHop(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, false
}

// isTrusted reports whether a is in one of the prefixes. A zone does not
// matter: fe80::1%eth0 is in fe80::/10.
func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.WithZone("")
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
