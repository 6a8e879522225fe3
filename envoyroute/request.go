package envoyroute

import (
	"net/netip"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
)

// Request is a request as Envoy's router and rate-limit filter see it.
type Request struct {
	// Method, Scheme, Authority and Path are the :method, :scheme, :authority and :path
	// pseudo-headers; Path includes the query string.
	Method, Scheme, Authority, Path string
	// Headers are the request headers by lower-case name, values in order.
	Headers map[string][]string
	// RemoteAddress is the downstream remote address (an IP, optionally with a port); one
	// that is not an IP is a pipe, which remote_address actions cannot use.
	RemoteAddress string
	// Metadata is the request's dynamic metadata; nil means none.
	Metadata descriptor.MetadataLookup
	// HitsAddend is the "envoy.ratelimit.hits_addend" filter state, the request's cost; 0
	// means unset.
	HitsAddend uint32
	// Response is the upstream's response, for the rate limits applied when the stream is
	// done (response.go); nil when none is given.
	Response *Response
}

// prepared is what evaluation reads of a request, computed once.
type prepared struct {
	*Request
	path   string     // :path without query and fragment
	query  string     // the raw query string, without "?"
	hasQ   bool       // whether :path has a "?"
	remote netip.Addr // invalid when RemoteAddress is not an IP
}

func prepare(r *Request) *prepared {
	p := &prepared{Request: r}
	target, _, _ := strings.Cut(r.Path, "#")
	p.path, p.query, p.hasQ = strings.Cut(target, "?")
	if a, err := netip.ParseAddr(r.RemoteAddress); err == nil {
		p.remote = a.Unmap()
	} else if ap, err := netip.ParseAddrPort(r.RemoteAddress); err == nil {
		p.remote = ap.Addr().Unmap()
	}
	return p
}

// header returns every value of a header, as Envoy's header map holds them; the
// pseudo-headers (and "host", which is :authority) read the request line.
func (p *prepared) header(name string) []string {
	switch name = strings.ToLower(name); name {
	case ":authority", "host":
		return nonEmpty(p.Authority)
	case ":method":
		return nonEmpty(p.Method)
	case ":path":
		return nonEmpty(p.Path)
	case ":scheme":
		return nonEmpty(p.Scheme)
	}
	return p.Headers[name]
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// queryValue returns the first value of a query parameter, as Envoy's
// QueryParamsMulti::parseAndDecodeQueryString and getFirstValue read it: names and values
// percent-decoded, a parameter without "=" has the empty value.
func (p *prepared) queryValue(name string) (string, bool) {
	if !p.hasQ {
		return "", false
	}
	return descriptor.QueryParam(p.query, name)
}

// forwardedProto is what require_tls reads: x-forwarded-proto, which Envoy's connection
// manager sets from the connection, else :scheme; "" when neither is known.
func (p *prepared) forwardedProto() string {
	if vs := p.Headers["x-forwarded-proto"]; len(vs) > 0 {
		return lower(vs[0])
	}
	return lower(p.Scheme)
}
