package hostindex

import "strings"

// TrimHost returns the host name in a Host header value: without the port
// ("example.com:8443" -> "example.com"), without the brackets of an IPv6 address
// ("[::1]:8080" -> "::1") and without one trailing dot ("example.com." -> "example.com").
// A port is removed only when it is all digits (possibly none, as in "example.com:"), and
// an unbracketed value with several colons ("::1") is an IPv6 address left whole. Values
// that fit none of these forms are returned unchanged, but for the trailing dot. TrimHost
// returns a substring of host and does not allocate; it does not change case (see
// [Normalize]).
func TrimHost(host string) string {
	h := host
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 && isPort(h[i+1:]) {
			h = h[1:i]
		}
	} else if i := strings.IndexByte(h, ':'); i >= 0 && isPort(h[i:]) {
		h = h[:i]
	}
	return strings.TrimSuffix(h, ".")
}

// isPort reports whether s is empty or a colon followed by zero or more decimal digits.
func isPort(s string) bool {
	if s == "" {
		return true
	}
	if s[0] != ':' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Normalize returns [TrimHost] of host with the ASCII letters lower-cased: the form a host
// has when it is compared with patterns. Other bytes are left as they are. Normalize
// allocates only when host has upper-case letters to fold.
func Normalize(host string) string {
	return asciiLower(TrimHost(host))
}

// asciiLower returns s with the ASCII letters A-Z lower-cased, and s itself (no
// allocation) when it has none.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}
