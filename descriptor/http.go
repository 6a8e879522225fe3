package descriptor

import (
	"net/http"
	"net/textproto"
	"strings"
)

// FromHTTP fills a Request from an incoming *http.Request without allocating: the path is the
// request target as received (RequestURI; for an absolute-form target such as
// "http://host/path?q" the part from the path on) or, for a request built by a client, the
// URL's escaped path; the remote address is r.RemoteAddr. Dynamic and route metadata are left
// for the caller to set.
func FromHTTP(r *http.Request) Request {
	return Request{
		Method:        r.Method,
		Host:          r.Host,
		Path:          requestPath(r),
		Headers:       HTTPHeaders(r.Header),
		RemoteAddress: r.RemoteAddr,
	}
}

func requestPath(r *http.Request) string {
	p := r.RequestURI
	if p == "" && r.URL != nil {
		if p = r.URL.RawPath; p == "" {
			p = r.URL.Path
		}
		return p
	}
	if strings.HasPrefix(p, "/") {
		return p
	}
	// Absolute form: skip "scheme://authority".
	if _, rest, ok := strings.Cut(p, "://"); ok {
		if i := strings.IndexAny(rest, "/?"); i >= 0 && rest[i] == '/' {
			return rest[i:]
		}
		return "/"
	}
	return p // "*" (OPTIONS) or authority form (CONNECT)
}

// HTTPHeaders adapts an http.Header to Headers without allocating. Like http.Header.Get it
// finds keys in canonical form, which is how net/http stores received headers.
type HTTPHeaders http.Header

var _ MultiValueHeaders = HTTPHeaders(nil)

// Get returns the first value of the header with the lower-case name.
func (h HTTPHeaders) Get(name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// Values returns every value of the header with the lower-case name.
func (h HTTPHeaders) Values(name string) []string {
	// Canonicalise into a stack buffer; indexing a map with string(bytes) does not allocate.
	var buf [64]byte
	if len(name) <= len(buf) {
		upper := true
		for i := 0; i < len(name); i++ {
			c := name[i]
			switch {
			case upper && 'a' <= c && c <= 'z':
				c -= 'a' - 'A'
			case !upper && 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			}
			buf[i] = c
			upper = c == '-'
		}
		return h[string(buf[:len(name)])]
	}
	// Header names longer than the buffer are rare; canonicalising them allocates.
	return h[textproto.CanonicalMIMEHeaderKey(name)]
}
