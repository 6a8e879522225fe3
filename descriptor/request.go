package descriptor

// Request is what descriptor generation reads of an HTTP request. Fill it from the proxy's
// own structures; none of its fields is copied or retained after the call. Package fromhttp
// fills one from a *http.Request.
type Request struct {
	// Method is the request method (":method").
	Method string
	// Host is the request's authority (":authority" or Host), as the client sent it: a port,
	// IPv6 brackets and a trailing dot are handled.
	Host string
	// Path is the request target (":path"); a query string and fragment are ignored where
	// paths are compared.
	Path string
	// Headers gives the request headers; nil means none.
	Headers Headers
	// RemoteAddress is the client address ("203.0.113.7", "203.0.113.7:5678",
	// "[2001:db8::1]:443"); empty when unknown.
	RemoteAddress string
	// DynamicMetadata is the request's dynamic metadata; nil means none.
	DynamicMetadata MetadataLookup
	// RouteMetadata is the matched route's metadata, read by metadata actions with source
	// ROUTE_ENTRY; nil means none.
	RouteMetadata MetadataLookup
	// HitsAddend is the request-level cost the proxy already knows (Envoy's
	// "envoy.ratelimit.hits_addend" filter state); 0 means unset, which the service treats
	// as 1. It is passed through to Result.HitsAddend.
	HitsAddend uint32
}

// Headers looks up request headers. Get receives a lower-case header name and returns the
// first value of that header, with ok false when it is absent. Implementations must not
// allocate on the hot path and must be safe to call from the goroutine running the
// generation.
type Headers interface {
	Get(name string) (value string, ok bool)
}

// MultiValueHeaders is implemented by Headers that can return every value of a repeated
// header. header_value_match and routeMatches use it to compare repeated headers joined with
// ",", as Envoy does; without it only the first value is compared.
type MultiValueHeaders interface {
	Headers
	// Values returns every value of the header with the lower-case name.
	Values(name string) []string
}

// MetadataLookup looks up metadata values: namespace is a MetadataKey's Key and path its
// segments. A found value is a string, a float64 (or another Go number type), a bool, a
// map[string]any struct or a []any list, as encoding/json decodes a protobuf Struct.
type MetadataLookup interface {
	Lookup(namespace string, path []string) (value any, ok bool)
}

// Metadata is a MetadataLookup over a decoded JSON object: namespace -> struct, where a
// struct is a map[string]any. The zero value holds nothing.
type Metadata map[string]any

var _ MetadataLookup = Metadata(nil)

// Lookup walks path inside the struct of namespace.
func (m Metadata) Lookup(namespace string, path []string) (any, bool) {
	v, ok := m[namespace]
	if !ok {
		return nil, false
	}
	for _, k := range path {
		obj, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// HeaderMap is Headers over a map from lower-case header names to their values, for tests and
// for proxies that already keep such a map. The zero value holds nothing.
type HeaderMap map[string][]string

var _ MultiValueHeaders = HeaderMap(nil)

// Get returns the first value of name.
func (h HeaderMap) Get(name string) (string, bool) {
	vs := h[name]
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// Values returns every value of name.
func (h HeaderMap) Values(name string) []string { return h[name] }

// Pseudo returns the value of a pseudo-header the request line holds, as Envoy's header
// map does: ":method", ":path" (with the query string) or ":authority". ok is false for an
// empty value and for any other name.
func (r *Request) Pseudo(name string) (value string, ok bool) {
	switch name {
	case ":method":
		return r.Method, r.Method != ""
	case ":path":
		return r.Path, r.Path != ""
	case ":authority":
		return r.Host, r.Host != ""
	}
	return "", false
}
