package httplimit

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// RoundTripper returns next behind the limiter: the plugin at step
// "proxy_upstream", for the Transport of an httputil.ReverseProxy, so that
// only requests that reach the upstream are counted. A nil next is
// http.DefaultTransport.
//
// The key is read from the inbound request when a handler above put it in the
// context (see KeyFromInbound; Set.Handler does), so that a Director or
// Rewrite that drops X-Forwarded-For or an API key header does not change it,
// and from the outgoing request otherwise. Over the limit the round trip
// returns a 429 response with the same headers and body as Handler, without
// calling next (the request body is closed, as the RoundTripper contract
// requires). An in-flight count is held until the response body is closed, or
// released at once when the round trip fails; a rejected request holds none.
//
// RoundTripper works whatever the Config's Step: the Step only tells a Set
// where to place the limiter.
func (l *Limiter) RoundTripper(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{l: l, next: next}
}

type transport struct {
	l    *Limiter
	next http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	src := req
	if in, ok := req.Context().Value(inboundKey{}).(*http.Request); ok {
		src = in
	}
	release, rej := t.l.admit(src)
	if rej != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return rej.response(req), nil
	}
	resp, err := t.next.RoundTrip(req)
	if release == nil {
		return resp, err
	}
	if err != nil || resp == nil || resp.Body == nil {
		release()
		return resp, err
	}
	if rwc, ok := resp.Body.(io.ReadWriteCloser); ok {
		// A 101 Switching Protocols body is the connection:
		// httputil.ReverseProxy needs it writable.
		resp.Body = &releaseRWBody{ReadWriteCloser: rwc, release: release}
	} else {
		resp.Body = &releaseBody{ReadCloser: resp.Body, release: release}
	}
	return resp, nil
}

// response builds the rejection as a response to req.
func (rej *rejection) response(req *http.Request) *http.Response {
	h := http.Header{
		"Content-Type":           {"text/plain; charset=utf-8"},
		"X-Content-Type-Options": {"nosniff"},
	}
	if rej.retryAfter != "" {
		h["Retry-After"] = []string{rej.retryAfter}
	}
	return &http.Response{
		Status:        strconv.Itoa(rej.status) + " " + http.StatusText(rej.status),
		StatusCode:    rej.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(strings.NewReader(rej.body)),
		ContentLength: int64(len(rej.body)),
		Request:       req,
	}
}

// releaseBody gives the in-flight count back when the body is closed.
type releaseBody struct {
	io.ReadCloser
	release func() // safe to call more than once
}

func (b *releaseBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// releaseRWBody is releaseBody for a writable body.
type releaseRWBody struct {
	io.ReadWriteCloser
	release func()
}

func (b *releaseRWBody) Close() error {
	err := b.ReadWriteCloser.Close()
	b.release()
	return err
}

// inboundKey is the context key of the inbound request.
type inboundKey struct{}

// KeyFromInbound returns next with the inbound request in its context, so
// that the RoundTrippers of limiters below it (inside an
// httputil.ReverseProxy, whose outgoing requests keep the inbound context)
// read their keys from what the client sent rather than from the rewritten
// outgoing request. Set.Handler does it when the set has a limiter at step
// "proxy_upstream".
func KeyFromInbound(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), inboundKey{}, r)))
	})
}
