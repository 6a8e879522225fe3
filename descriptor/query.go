package descriptor

import (
	"net/netip"
	"net/url"
	"strings"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// remoteAddressFormat is the substitution a remote_address_match value may hold.
const remoteAddressFormat = "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%"

// appendRemoteAddressMatch appends a remote_address_match entry, or returns why it cannot.
func (a *action) appendRemoteAddressMatch(req *Request, res *Result) string {
	ip, ok := clientIP(req.RemoteAddress)
	addr, err := netip.ParseAddr(ip)
	if !ok || err != nil {
		return "remote_address_match: the request has no client IP address"
	}
	in := false
	for _, p := range a.ranges {
		in = in || p.Contains(addr.WithZone(""))
	}
	if in == a.invert {
		if a.invert {
			return "remote_address_match: the client address " + ip + " is in a range and invert_match is set"
		}
		return "remote_address_match: the client address " + ip + " is in no range"
	}
	v := a.value
	if strings.Contains(v, remoteAddressFormat) {
		v = strings.ReplaceAll(v, remoteAddressFormat, ip)
	}
	res.entries = append(res.entries, rlsmsg.Entry{Key: a.key, Value: v})
	return ""
}

// queryValue returns the first value of the query parameter name in a request target,
// percent-decoded ("+" as a space), as Envoy's query parameter matchers read it; a
// parameter without "=" has the empty value.
func queryValue(target, name string) (string, bool) {
	_, query, ok := strings.Cut(target, "?")
	if !ok {
		return "", false
	}
	query, _, _ = strings.Cut(query, "#")
	return QueryParam(query, name)
}

// QueryParam returns the first value of the parameter name in a raw query string (without
// "?" and fragment), percent-decoded with "+" as a space, as Envoy's query parameter
// matchers and actions read it; a parameter without "=" has the empty value.
func QueryParam(query, name string) (string, bool) {
	for query != "" {
		var pair string
		pair, query, _ = strings.Cut(query, "&")
		k, v, _ := strings.Cut(pair, "=")
		if unescape(k) == name {
			return unescape(v), true
		}
	}
	return "", false
}

func unescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}

// matchQuery reports whether every matcher matches the query of a request target: an
// absent parameter matches no matcher, a present_match (true or false) any value of a
// present one, as Envoy's QueryParameterMatcher does.
func matchQuery(target string, ms []queryMatcher) bool {
	for i := range ms {
		v, ok := queryValue(target, ms[i].name)
		switch {
		case !ok:
			return false // an absent parameter matches nothing, as in Envoy
		case ms[i].m.kind == matchPresent:
			// present_match, true or false, asks for presence, as in Envoy
		case !ms[i].m.matchValue(v):
			return false
		}
	}
	return true
}
