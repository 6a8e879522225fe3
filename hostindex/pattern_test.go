package hostindex

import (
	"strings"
	"testing"
)

func TestValidatePattern(t *testing.T) {
	label63 := strings.Repeat("x", 63)
	label64 := strings.Repeat("x", 64)
	name253 := strings.Repeat("a.", 126) + "a"
	name254 := strings.Repeat("a.", 126) + "ab"
	tests := []struct {
		name    string
		pattern string
		want    string // the error, "" for a valid pattern
	}{
		{"hostname", "api.example.com", ""},
		{"single label", "localhost", ""},
		{"wildcard", "*.example.com", ""},
		{"wildcard over a top-level domain", "*.com", ""},
		{"star", "*", ""},
		{"star with trailing dot", "*.", ""},
		{"upper case and trailing dot", "API.Example.COM.", ""},
		{"IPv4 literal", "10.0.0.1", ""},
		{"digits and dashes", "a-1.0-b.c0m", ""},
		{"A-label", "xn--bcher-kva.example", ""},
		{"63-byte label", label63 + ".com", ""},
		{"253 bytes", name253, ""},

		{"empty", "", `hostindex: invalid pattern "": it is empty`},
		{"only a dot", ".", `hostindex: invalid pattern ".": it is empty`},
		{"254 bytes", name254, `hostindex: invalid pattern "` + name254 + `": it is 254 bytes long, more than 253`},
		{"star inside a label", "a*.example.com", `hostindex: invalid pattern "a*.example.com": a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"`},
		{"star as a prefix", "*example.com", `hostindex: invalid pattern "*example.com": a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"`},
		{"star on the right", "example.*", `hostindex: invalid pattern "example.*": a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"`},
		{"two stars", "*.*.example.com", `hostindex: invalid pattern "*.*.example.com": a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"`},
		{"double star", "**.example.com", `hostindex: invalid pattern "**.example.com": a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"`},
		{"leading dot", ".example.com", `hostindex: invalid pattern ".example.com": label 1 "" is empty`},
		{"empty inner label", "a..com", `hostindex: invalid pattern "a..com": label 2 "" is empty`},
		{"empty label after star", "*..com", `hostindex: invalid pattern "*..com": label 2 "" is empty`},
		{"two trailing dots", "example.com..", `hostindex: invalid pattern "example.com..": label 3 "" is empty`},
		{"64-byte label", label64 + ".com", `hostindex: invalid pattern "` + label64 + `.com": label 1 "` + label64 + `" is 64 bytes long, more than 63`},
		{"leading dash", "-a.com", `hostindex: invalid pattern "-a.com": label 1 "-a" starts with "-"`},
		{"trailing dash", "a-.com", `hostindex: invalid pattern "a-.com": label 1 "a-" ends with "-"`},
		{"dash after star", "*.-a.com", `hostindex: invalid pattern "*.-a.com": label 2 "-a" starts with "-"`},
		{"underscore", "a_b.com", `hostindex: invalid pattern "a_b.com": label 1 "a_b" has "_": labels hold only letters, digits and "-"`},
		{"space", "exa mple.com", `hostindex: invalid pattern "exa mple.com": label 1 "exa mple" has " ": labels hold only letters, digits and "-"`},
		{"non-ASCII", "\xc3\xa9.com", `hostindex: invalid pattern "é.com": label 1 "é" has "\xc3": labels hold only letters, digits and "-"`},
		{"port", "example.com:8080", `hostindex: invalid pattern "example.com:8080": label 2 "com:8080" has ":": patterns carry no port and no IPv6 address`},
		{"IPv6", "::1", `hostindex: invalid pattern "::1": label 1 "::1" has ":": patterns carry no port and no IPv6 address`},
		{"bracketed IPv6", "[::1]", `hostindex: invalid pattern "[::1]": label 1 "[::1]" has "[": labels hold only letters, digits and "-"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidatePattern(tc.pattern)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Errorf("ValidatePattern(%q) = %q, want %q", tc.pattern, got, tc.want)
			}
		})
	}
}

func TestAddNormalisesPattern(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		host    string
		want    string
	}{
		{"upper case", "API.Example.COM", "api.example.com", "api.example.com"},
		{"trailing dot", "example.com.", "example.com", "example.com"},
		{"wildcard", "*.EXAMPLE.com.", "a.example.com", "*.example.com"},
		{"star with trailing dot", "*.", "anything", "*"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix := build(t, tc.pattern)
			m, ok := ix.Lookup(tc.host)
			if !ok || m.Pattern != tc.want {
				t.Errorf("after Add(%q), Lookup(%q) = %q, %v, want %q, true", tc.pattern, tc.host, m.Pattern, ok, tc.want)
			}
		})
	}
}
