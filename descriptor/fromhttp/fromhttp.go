// Package fromhttp fills a descriptor.Request from a *http.Request, for Go proxies and tests.
// It is apart from package descriptor so that a proxy-wasm filter, which has no net/http,
// does not link it.
package fromhttp

import (
	"net/http"
	"net/textproto"
	"strings"

	"github.com/rlpkit/rlpkit/descriptor"
)

// Request fills a descriptor.Request from an incoming *http.Request without allocating: the path is the
// request target as received (RequestURI; for an absolute-form target such as
// "http://host/path?q" the part from the path on) or, for a request built by a client, the
// URL's escaped path; the remote address is r.RemoteAddr. Dynamic and route metadata are left
// for the caller to set.
func Request(r *http.Request) descriptor.Request {
	return descriptor.Request{
		Method:        r.Method,
		Host:          r.Host,
		Path:          requestPath(r),
		Headers:       Headers(r.Header),
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

// Headers adapts an http.Header to descriptor.Headers without allocating. Like http.Header.Get it
// finds keys in canonical form, which is how net/http stores received headers.
type Headers http.Header

var _ descriptor.MultiValueHeaders = Headers(nil)

// Get returns the first value of the header with the lower-case name.
func (h Headers) Get(name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// Values returns every value of the header with the lower-case name.
func (h Headers) Values(name string) []string {
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
