package hostindex

import "testing"

func TestTrimHost(t *testing.T) {
	tests := []struct {
		name string
		host string
		want string
	}{
		{"name", "example.com", "example.com"},
		{"port", "example.com:8443", "example.com"},
		{"empty port", "example.com:", "example.com"},
		{"trailing dot", "example.com.", "example.com"},
		{"trailing dot and port", "example.com.:80", "example.com"},
		{"only one trailing dot", "example.com..", "example.com."},
		{"case is kept", "Foo.Example.COM:8443", "Foo.Example.COM"},
		{"IPv4 and port", "10.0.0.1:80", "10.0.0.1"},
		{"IPv6 brackets and port", "[::1]:8080", "::1"},
		{"IPv6 brackets", "[::1]", "::1"},
		{"IPv6 zone", "[fe80::1%25eth0]:443", "fe80::1%25eth0"},
		{"unbracketed IPv6", "::1", "::1"},
		{"unbracketed IPv6 with what looks like a port", "fe80::1:80", "fe80::1:80"},
		{"non-numeric port", "example.com:http", "example.com:http"},
		{"two ports", "example.com:80:80", "example.com:80:80"},
		{"junk after brackets", "[::1]x", "[::1]x"},
		{"unclosed bracket", "[::1:80", "[::1:80"},
		{"empty brackets", "[]:80", ""},
		{"empty", "", ""},
		{"only a port", ":80", ""},
		{"only a dot", ".", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TrimHost(tc.host); got != tc.want {
				t.Errorf("TrimHost(%q) = %q, want %q", tc.host, got, tc.want)
			}
			if n := testing.AllocsPerRun(10, func() { TrimHost(tc.host) }); n != 0 {
				t.Errorf("TrimHost(%q) allocates %v times, want 0", tc.host, n)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name   string
		host   string
		want   string
		allocs float64
	}{
		{"lower case", "api.example.com", "api.example.com", 0},
		{"lower case with port", "api.example.com:443", "api.example.com", 0},
		{"upper case and port", "Foo.Example.COM:8443", "foo.example.com", 1},
		{"IPv6", "[::FFFF:10.0.0.1]:80", "::ffff:10.0.0.1", 1},
		{"trailing dot", "EXAMPLE.com.", "example.com", 1},
		{"non-ASCII bytes are kept", "\xc3\x89T\xc3\x89.com", "\xc3\x89t\xc3\x89.com", 1},
		{"Kelvin sign is not a K", "\u212a.com", "\u212a.com", 0},
		{"empty", "", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.host); got != tc.want {
				t.Errorf("Normalize(%q) = %q, want %q", tc.host, got, tc.want)
			}
			if n := testing.AllocsPerRun(10, func() { Normalize(tc.host) }); n != tc.allocs {
				t.Errorf("Normalize(%q) allocates %v times, want %v", tc.host, n, tc.allocs)
			}
		})
	}
}
