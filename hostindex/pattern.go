package hostindex

import (
	"fmt"
	"strings"
)

const (
	maxNameLen  = 253 // bytes in a pattern, as in a DNS name and a Gateway API Hostname
	maxLabelLen = 63  // bytes in a label (RFC 1123)
)

// ValidatePattern returns nil if p is a valid pattern for [Index.Add], or an error naming p
// and saying why it is not. After normalisation (ASCII lower-cased, one trailing dot
// removed) a valid pattern is one of:
//
//   - "*", which matches every host;
//   - a hostname: dot-separated labels of letters, digits and '-', each 1 to 63 bytes long,
//     neither starting nor ending with '-' (RFC 1123), such as "api.example.com",
//     "localhost" or the IPv4 literal "10.0.0.1";
//   - a wildcard: "*." followed by a hostname, such as "*.example.com".
//
// The whole pattern is at most 253 bytes long. A '*' anywhere but as the whole leftmost
// label ("a*.example.com", "example.*") is invalid, and so are ports and IPv6 addresses.
func ValidatePattern(p string) error {
	_, err := normalizePattern(p)
	return err
}

// normalizePattern returns p lower-cased and without one trailing dot, or an error if the
// result is not a valid pattern.
func normalizePattern(p string) (string, error) {
	s := asciiLower(strings.TrimSuffix(p, "."))
	if why := checkPattern(s); why != "" {
		return "", fmt.Errorf("hostindex: invalid pattern %q: %s", p, why)
	}
	return s, nil
}

// checkPattern returns why the normalised pattern s is invalid, or "" if it is valid.
func checkPattern(s string) string {
	if why := checkSize(s, maxNameLen); why != "" {
		return "it " + why
	}
	if s == "*" {
		return ""
	}
	name, first := s, 1 // first is the number of name's first label in s, counting from 1
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		name, first = rest, 2
	}
	if strings.Contains(name, "*") {
		return `a wildcard "*" is allowed only as the whole leftmost label, as in "*.example.com"`
	}
	for i := first; ; i++ {
		label, rest, more := strings.Cut(name, ".")
		if why := checkLabel(label); why != "" {
			return fmt.Sprintf("label %d %q %s", i, label, why)
		}
		if !more {
			return ""
		}
		name = rest
	}
}

// checkSize returns why s, a pattern or a label, is empty or longer than max bytes, or ""
// if it is neither.
func checkSize(s string, max int) string {
	if s == "" {
		return "is empty"
	}
	if len(s) > max {
		return fmt.Sprintf("is %d bytes long, more than %d", len(s), max)
	}
	return ""
}

// checkLabel returns why label is not a valid RFC 1123 label, or "" if it is valid.
func checkLabel(label string) string {
	if why := checkSize(label, maxLabelLen); why != "" {
		return why
	}
	switch {
	case label[0] == '-':
		return `starts with "-"`
	case label[len(label)-1] == '-':
		return `ends with "-"`
	}
	for i := 0; i < len(label); i++ {
		c := label[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '-':
		case c == ':':
			return `has ":": patterns carry no port and no IPv6 address`
		default:
			return fmt.Sprintf("has %q: labels hold only letters, digits and \"-\"", label[i:i+1])
		}
	}
	return ""
}
