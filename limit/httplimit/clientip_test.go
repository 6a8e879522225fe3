package httplimit

import (
	"net/netip"
	"strings"
	"testing"
)

func prefixes(ss ...string) []netip.Prefix {
	var ps []netip.Prefix
	for _, s := range ss {
		ps = append(ps, netip.MustParsePrefix(s))
	}
	return ps
}

// clientString renders clientAddr's answer: the address, the raw peer, or
// "-" when there is none.
func clientString(remoteAddr string, xff []string, trusted []netip.Prefix) string {
	addr, raw, ok := clientAddr(remoteAddr, xff, trusted)
	switch {
	case !ok:
		return "-"
	case addr.IsValid():
		return addr.String()
	default:
		return "raw:" + raw
	}
}

func TestClientAddr(t *testing.T) {
	proxies := prefixes("10.0.0.0/8", "2001:db8:ffff::/48")
	tests := []struct {
		name    string
		remote  string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{name: "peer", remote: "192.0.2.7:51234", want: "192.0.2.7"},
		{name: "peer v6", remote: "[2001:db8::1]:443", want: "2001:db8::1"},
		{name: "peer v4-mapped", remote: "[::ffff:192.0.2.7]:80", want: "192.0.2.7"},
		{name: "peer with zone", remote: "[fe80::1%eth0]:80", want: "fe80::1%eth0"},
		{name: "peer without port", remote: "192.0.2.7", want: "192.0.2.7"},
		{name: "no peer", remote: "", want: "-"},
		{name: "unix socket peer", remote: "@", want: "raw:@"},
		{name: "no trusted proxies: XFF ignored", remote: "10.0.0.1:1", xff: []string{"203.0.113.9"}, want: "10.0.0.1"},
		{name: "untrusted peer: XFF ignored", remote: "192.0.2.7:1", xff: []string{"203.0.113.9"}, trusted: proxies, want: "192.0.2.7"},
		{name: "trusted peer, one hop", remote: "10.0.0.1:1", xff: []string{"203.0.113.9"}, trusted: proxies, want: "203.0.113.9"},
		{
			name: "forged left-most hop is not used", remote: "10.0.0.1:1",
			xff: []string{"1.2.3.4, 203.0.113.9"}, trusted: proxies, want: "203.0.113.9",
		},
		{
			name: "trusted hops skipped right to left", remote: "10.0.0.1:1",
			xff: []string{"1.2.3.4, 203.0.113.9, 10.1.1.1,10.2.2.2"}, trusted: proxies, want: "203.0.113.9",
		},
		{
			name: "several header lines concatenated in order", remote: "10.0.0.1:1",
			xff: []string{"1.2.3.4, 203.0.113.9", "10.1.1.1", "10.2.2.2"}, trusted: proxies, want: "203.0.113.9",
		},
		{
			name: "untrusted hop in an earlier line", remote: "10.0.0.1:1",
			xff: []string{"203.0.113.9", "198.51.100.1, 10.1.1.1"}, trusted: proxies, want: "198.51.100.1",
		},
		{
			name: "all hops trusted: left-most", remote: "10.0.0.1:1",
			xff: []string{"10.9.9.9, 10.1.1.1"}, trusted: proxies, want: "10.9.9.9",
		},
		{name: "trusted peer, no XFF", remote: "10.0.0.1:1", trusted: proxies, want: "10.0.0.1"},
		{name: "trusted peer, empty XFF", remote: "10.0.0.1:1", xff: []string{" , ,"}, trusted: proxies, want: "10.0.0.1"},
		{
			name: "garbage hop stops at the proxy that wrote it", remote: "10.0.0.1:1",
			xff: []string{"203.0.113.9, unknown, 10.1.1.1"}, trusted: proxies, want: "10.1.1.1",
		},
		{name: "hop with port", remote: "10.0.0.1:1", xff: []string{"203.0.113.9:4711"}, trusted: proxies, want: "203.0.113.9"},
		{name: "v6 hop with port", remote: "10.0.0.1:1", xff: []string{"[2001:db8::9]:4711"}, trusted: proxies, want: "2001:db8::9"},
		{name: "v6 hop in brackets", remote: "10.0.0.1:1", xff: []string{"[2001:db8::9]"}, trusted: proxies, want: "2001:db8::9"},
		{name: "v4-mapped hop", remote: "10.0.0.1:1", xff: []string{"::ffff:203.0.113.9"}, trusted: proxies, want: "203.0.113.9"},
		{
			name: "trusted v6 proxy", remote: "[2001:db8:ffff::1]:1",
			xff: []string{"2001:db8:1::5, 2001:db8:ffff::2"}, trusted: proxies, want: "2001:db8:1::5",
		},
		{
			name: "zoned peer is trusted by its prefix", remote: "[fe80::1%eth0]:1",
			xff: []string{"203.0.113.9"}, trusted: prefixes("fe80::/10"), want: "203.0.113.9",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := clientString(tc.remote, tc.xff, tc.trusted); got != tc.want {
				t.Errorf("clientAddr(%q, %q, %v) = %s, want %s", tc.remote, tc.xff, tc.trusted, got, tc.want)
			}
		})
	}
}

// FuzzClientAddr checks clientAddr against a plain reading of the rule: split
// every line on commas, drop empty hops, and take the right-most untrusted
// hop, the peer when it is untrusted.
func FuzzClientAddr(f *testing.F) {
	f.Add("10.0.0.1:1", "1.2.3.4, 203.0.113.9", "10.1.1.1")
	f.Add("192.0.2.7:1", "203.0.113.9", "")
	f.Add("10.0.0.1:1", "203.0.113.9, unknown", "10.2.2.2")
	f.Add("[2001:db8:ffff::1]:1", "[2001:db8::9]:4711", " , ")
	trusted := prefixes("10.0.0.0/8", "2001:db8:ffff::/48")
	f.Fuzz(func(t *testing.T, remote, line1, line2 string) {
		xff := []string{line1, line2}
		got := clientString(remote, xff, trusted)

		var hops []string
		for _, line := range xff {
			for _, h := range strings.Split(line, ",") {
				if h = strings.TrimSpace(h); h != "" {
					hops = append(hops, h)
				}
			}
		}
		want := clientString(remote, nil, nil)
		if peer, _, ok := clientAddr(remote, nil, nil); ok && peer.IsValid() && isTrusted(peer, trusted) {
			for i := len(hops) - 1; i >= 0; i-- {
				a, ok := parseHop(hops[i])
				if !ok {
					break
				}
				want = a.String()
				if !isTrusted(a, trusted) {
					break
				}
			}
		}
		if got != want {
			t.Errorf("clientAddr(%q, %q) = %s, want %s", remote, xff, got, want)
		}
	})
}
