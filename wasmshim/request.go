package wasmshim

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Request is what the evaluator knows of a request: the attributes Envoy gives wasm-shim.
// The zero value of a field leaves its attribute out, except those derived from others.
type Request struct {
	// Method is the :method header.
	Method string
	// Scheme is "http" or "https"; empty means "http".
	Scheme string
	// Host is the :authority, possibly with a port.
	Host string
	// Path is the :path: the path and the query string.
	Path string
	// Protocol is request.protocol as Envoy names it ("HTTP/1.1", "HTTP/2"); empty means
	// "HTTP/1.1". A gRPC call is "HTTP/2".
	Protocol string
	// Headers are the request headers by lower-case name; repeated values are joined with
	// ",", as Envoy's header map attribute holds them.
	Headers map[string][]string
	// SourceAddress is the client address, "ip:port" or an IP; it gives source.address,
	// source.port and source.remote_address.
	SourceAddress string
	// DestinationAddress is the address the request came in on, "ip:port" or an IP.
	DestinationAddress string
	// ID is request.id (x-request-id).
	ID string
	// Time is request.time; the zero value leaves it out.
	Time time.Time
	// Auth is the auth.* attributes, as an AuthPolicy's response would give them; nil
	// leaves them out.
	Auth map[string]any
	// ResponseBody is the response body, for the data expressions wasm-shim evaluates once
	// it has arrived (a responseBodyJSON call with a literal pointer, as a
	// TokenRateLimitPolicy's report reads it); nil means the response is not there yet.
	ResponseBody []byte
}

// activation returns the CEL bindings of the request's attributes.
func (r *Request) activation() map[string]any {
	scheme := r.Scheme
	if scheme == "" {
		scheme = "http"
	}
	protocol := r.Protocol
	if protocol == "" {
		protocol = "HTTP/1.1"
	}
	urlPath, query, _ := strings.Cut(r.Path, "?")
	headers := make(map[string]string, len(r.Headers)+1)
	for k, vs := range r.Headers {
		headers[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	if r.Host != "" {
		headers[":authority"] = r.Host
	}
	if r.Method != "" {
		headers[":method"] = r.Method
	}
	req := map[string]any{
		"method": r.Method, "scheme": scheme, "host": r.Host, "path": r.Path,
		"url_path": urlPath, "query": query, "headers": headers, "protocol": protocol,
	}
	if v, ok := headers["referer"]; ok {
		req["referer"] = v
	}
	if v, ok := headers["user-agent"]; ok {
		req["useragent"] = v
	}
	if r.ID != "" {
		req["id"] = r.ID
	} else if v, ok := headers["x-request-id"]; ok {
		req["id"] = v
	}
	if !r.Time.IsZero() {
		req["time"] = r.Time
	}
	act := map[string]any{"request": req, "source": addressAttributes(r.SourceAddress, true), "destination": addressAttributes(r.DestinationAddress, false)}
	act["connection"] = map[string]any{}
	if r.Auth != nil {
		act["auth"] = r.Auth
	}
	return act
}

// addressAttributes returns address and port (and, for the source, remote_address: the
// IP alone) of "ip:port" or an IP; empty gives an empty group.
func addressAttributes(addr string, source bool) map[string]any {
	out := map[string]any{}
	if addr == "" {
		return out
	}
	out["address"] = addr
	ip := addr
	if host, port, err := net.SplitHostPort(addr); err == nil {
		ip = host
		if p, err := strconv.ParseInt(port, 10, 64); err == nil {
			out["port"] = p
		}
	}
	if source {
		out["remote_address"] = ip
	}
	return out
}

// unescapeQuery decodes a query key or value; one that does not decode is kept as written.
func unescapeQuery(s string) string {
	if u, err := url.QueryUnescape(s); err == nil {
		return u
	}
	return s
}
