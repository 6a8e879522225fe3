package limit

import (
	"fmt"
	"strconv"
)

// TagBy chooses the Redis Cluster hash tag that starts every counter key an
// evaluator builds: Redis Cluster keeps the keys of one tag in one slot, so
// on one node, and a script (one request's Store.Update) can touch one slot
// only. The zero value is TagByDomain.
type TagBy uint8

const (
	// TagByDomain tags every key with the request's domain, "{domain}":
	// every counter of a domain lives on one Cluster node, and a request,
	// whose keys all share its domain, is decided in one script, all or
	// nothing. The cost: one domain's traffic is served by one node
	// however large the Cluster is.
	TagByDomain TagBy = iota
	// TagByFirstEntry tags a key with the domain and the first entry of the
	// descriptor it counts, "{domain|key|value}" (in limit/limitador, the
	// first variable of the limit and its value): one tenant's counters
	// stay together while tenants spread over the Cluster. A request whose
	// counters have several tags can then only be decided all or nothing
	// within each tag (limit/redis's Options.SplitHashTags).
	TagByFirstEntry
)

var tagByNames = [...]string{TagByDomain: "domain", TagByFirstEntry: "first-entry"}

// String returns the name ParseTagBy reads: "domain" or "first-entry".
func (t TagBy) String() string {
	if int(t) < len(tagByNames) {
		return tagByNames[t]
	}
	return fmt.Sprintf("TagBy(%d)", uint8(t))
}

// ParseTagBy returns the TagBy named s: "domain" or "first-entry".
func ParseTagBy(s string) (TagBy, error) {
	for i, name := range tagByNames {
		if s == name {
			return TagBy(i), nil
		}
	}
	return 0, fmt.Errorf("limit: hash tag %q: want domain or first-entry", s)
}

// AppendTag appends the hash tag of domain, "{" domain "}", with '{', '}',
// '|' and '%' written %7B, %7D, %7C and %25. Redis Cluster hashes the bytes
// between a key's first '{' and the first '}' after it; escaped, they are
// the whole domain whatever it holds, one tag per domain, and two domains
// never share one. An ordinary domain reads as it is.
func AppendTag(b []byte, domain string) []byte {
	b = append(b, '{')
	b = appendEscaped(b, domain)
	return append(b, '}')
}

// AppendEntryTag appends the hash tag of domain and one entry (TagByFirstEntry):
// "{" domain "|" key "|" value "}", each escaped as AppendTag escapes the
// domain, so that no two (domain, key, value) and no domain alone share a
// tag.
func AppendEntryTag(b []byte, domain, key, value string) []byte {
	b = append(b, '{')
	b = appendEscaped(b, domain)
	b = append(b, '|')
	b = appendEscaped(b, key)
	b = append(b, '|')
	b = appendEscaped(b, value)
	return append(b, '}')
}

// appendEscaped appends s with '{', '}', '|' and '%' percent-encoded.
func appendEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			b = append(b, "%7B"...)
		case '}':
			b = append(b, "%7D"...)
		case '|':
			b = append(b, "%7C"...)
		case '%':
			b = append(b, "%25"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// AppendString appends s length-prefixed: its length in decimal bytes, ':'
// and s. A key made of a fixed start and such fields, in a fixed order or
// after their count, reads back one way only, so no choice of values makes
// two counters share a key (as "_"-joined keys do: user "alice_path_/x"
// against user "alice" and path "/x").
func AppendString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
}
