package envoygateway

import (
	"net/netip"
	"regexp"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
)

// request is what evaluation reads of a request, prepared once.
type request struct {
	*descriptor.Request
	host   string     // lower case, without port or trailing dot
	path   string     // :path without query and fragment
	target string     // :path with its query, without fragment
	addr   netip.Addr // the client address; invalid when unknown
	ip     string     // addr as Envoy formats it

	response *Response   // the response, when given (response.go)
	done     *streamDone // the dynamic metadata when the response is done
}

func newRequest(r *descriptor.Request) *request {
	q := &request{Request: r, target: r.Path}
	q.target, _, _ = strings.Cut(q.target, "#")
	q.path, _, _ = strings.Cut(q.target, "?")
	q.host = hostOnly(r.Host)
	if a, ok := clientAddr(r.RemoteAddress); ok {
		q.addr, q.ip = a, a.String()
	}
	return q
}

// hostOnly returns an authority's host, lower case, without port, brackets or trailing dot.
func hostOnly(h string) string {
	if strings.HasPrefix(h, "[") {
		if end := strings.IndexByte(h, ']'); end > 0 {
			h = h[1:end]
		}
	} else if strings.Count(h, ":") == 1 {
		h = h[:strings.IndexByte(h, ':')]
	}
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// clientAddr parses a client address with or without a port.
func clientAddr(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr(), true
	}
	return netip.Addr{}, false
}

// header returns every value of a header joined with ",", as Envoy compares it;
// pseudo-headers read the request line.
func (q *request) header(name string) (string, bool) {
	name = strings.ToLower(name)
	if v, ok := q.Pseudo(name); ok || name == ":method" || name == ":path" || name == ":authority" {
		return v, ok
	}
	if q.Headers == nil {
		return "", false
	}
	if mv, ok := q.Headers.(descriptor.MultiValueHeaders); ok {
		vs := mv.Values(name)
		return strings.Join(vs, ","), len(vs) > 0
	}
	return q.Headers.Get(name)
}

// firstHeader returns a header's first value, as Envoy's request_headers action reads it.
func (q *request) firstHeader(name string) (string, bool) {
	name = strings.ToLower(name)
	if strings.HasPrefix(name, ":") || q.Headers == nil {
		return q.header(name)
	}
	return q.Headers.Get(name)
}

// query returns the first value of a query parameter, percent-decoded with "+" as a space;
// a parameter without "=" has the empty value.
func (q *request) query(name string) (string, bool) {
	_, raw, ok := strings.Cut(q.target, "?")
	if !ok {
		return "", false
	}
	return descriptor.QueryParam(raw, name)
}

// matches reports whether a value matches m's pattern (Invert aside): Exact equal, Prefix
// a prefix, Suffix a suffix, Regex a full match.
func (m *StringMatch) matches(v string) bool {
	switch {
	case m.Exact != nil:
		return v == *m.Exact
	case m.Prefix != nil:
		return strings.HasPrefix(v, *m.Prefix)
	case m.Suffix != nil:
		return strings.HasSuffix(v, *m.Suffix)
	case m.Regex != nil:
		return m.re != nil && m.re.MatchString(v)
	}
	return false
}

// compile compiles m's regular expression, anchored as Envoy's safe_regex matches; an
// invalid one matches nothing.
func (m *StringMatch) compile() {
	if m.Regex != nil {
		m.re, _ = regexp.Compile(`^(?:` + *m.Regex + `)$`)
	}
}

// grpcCall reports whether q is a gRPC call as Envoy decides when it answers one itself:
// its content-type is application/grpc, alone or followed by "+" or ";".
func grpcCall(q *request) bool {
	ct, ok := q.firstHeader("content-type")
	rest, grpc := strings.CutPrefix(ct, "application/grpc")
	return ok && grpc && (rest == "" || rest[0] == '+' || rest[0] == ';')
}
