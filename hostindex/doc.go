// Package hostindex maps hostname patterns to values and finds the patterns that match a
// request's Host header, most specific first. An Envoy filter uses it to pick the
// rate-limit policy for a request, and the descriptor package builds on it; both are
// compiled to WebAssembly, so hostindex imports only the standard library.
//
// # Patterns
//
// A pattern is an exact hostname ("api.example.com"), a Gateway API wildcard
// ("*.example.com": the leftmost label is "*") or "*" alone. Labels follow RFC 1123
// (letters, digits and '-', 1 to 63 bytes, no leading or trailing '-') and a pattern is at
// most 253 bytes long. An IPv4 literal ("10.0.0.1") is a valid exact pattern. Patterns are
// normalised before use: ASCII letters are lower-cased and one trailing dot is removed.
// See [ValidatePattern].
//
// # Matching
//
// Matching follows the Gateway API's hostname semantics. A host is first normalised with
// [Normalize] (port, IPv6 brackets and one trailing dot removed, ASCII lower-cased). Then:
//
//   - an exact pattern matches the host equal to it;
//   - "*.example.com" matches a host that ends in ".example.com" with at least one byte
//     before that suffix: "a.example.com" and "a.b.example.com" (one or more labels), never
//     "example.com" itself;
//   - "*" matches every host, also an empty one, an IP address or a malformed one.
//
// The most specific match comes first: the exact pattern, then the wildcards from the
// longest suffix to the shortest ("*.a.example.com" before "*.example.com"), then "*".
// [Index.Lookup] returns the first; [Index.Walk] visits them all in that order, so a caller
// can fall back to a less specific pattern. Lookups allocate nothing.
//
// # What it is not
//
// hostindex does not validate hosts: a host that is not a valid DNS name still matches the
// patterns it equals or ends with, byte for byte (only ASCII letters are folded). It knows
// nothing of internationalised names (convert them to A-labels first), of IPv6 patterns
// (no pattern holds a ':', so an IPv6 host is matched by "*" and at most by a wildcard over
// an embedded IPv4 tail such as "*.0.0.1"), of ports in patterns, or of regular
// expressions.
//
// # Where it differs from upstream
//
// The Kuadrant proposal "RateLimitPolicy targeting a Gateway resource" describes the filter
// as a tree of policies where the longest hostname match selects exactly one policy.
// hostindex keeps that rule for [Index.Lookup] and adds [Index.Walk], which yields the
// shorter matches too, and it keeps a list of values per pattern because several policies
// may share a hostname. Envoy's virtual-host domains also
// accept partial wildcards ("*-bar.example.com", "example.*"); hostindex rejects them, as
// the Gateway API does.
package hostindex
