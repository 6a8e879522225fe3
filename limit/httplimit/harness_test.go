package httplimit

import (
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// t0 starts a window for every interval the tests use (it is a whole
// number of minutes since the epoch).
var t0 = time.Unix(1_700_000_040, 0)

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: t0} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// upstream stands for everything behind the limiter: the handler at step
// request, the transport at step proxy_upstream. It answers 200 "upstream"
// and counts its calls.
type upstream struct {
	calls atomic.Int64
	// block, when set, is waited on (and entered is signalled) while a
	// request is being served, unless it has the header X-No-Block.
	block   chan struct{}
	entered chan struct{}
	// fail makes the round trip fail.
	fail bool
}

func (u *upstream) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	u.calls.Add(1)
	u.wait(r)
	io.WriteString(w, "upstream")
}

func (u *upstream) wait(r *http.Request) {
	if u.block != nil && r.Header.Get("X-No-Block") == "" {
		u.entered <- struct{}{}
		<-u.block
	}
}

func (u *upstream) RoundTrip(r *http.Request) (*http.Response, error) {
	u.calls.Add(1)
	if r.Body != nil {
		r.Body.Close()
	}
	if u.fail {
		return nil, errors.New("upstream unreachable")
	}
	u.wait(r)
	return &http.Response{
		StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{}, Body: io.NopCloser(strings.NewReader("upstream")), ContentLength: 8, Request: r,
	}, nil
}

// steps are the two places a limiter runs.
var steps = []Step{StepRequest, StepProxyUpstream}

// front returns the handler a client talks to with l at step: l's Handler
// in front of u, or a reverse proxy whose transport is l's RoundTripper in
// front of u (with the inbound request in the context, as Set.Handler does).
func front(l *Limiter, step Step, u *upstream) http.Handler {
	if step == StepRequest {
		return l.Handler(u)
	}
	target, _ := url.Parse("http://upstream.test")
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		Transport: l.RoundTripper(u),
		ErrorLog:  log.New(io.Discard, "", 0),
	}
	return KeyFromInbound(proxy)
}

// result is what a client saw.
type result struct {
	Status     int
	Body       string
	RetryAfter string
}

func do(h http.Handler, r *http.Request) result {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return result{Status: w.Code, Body: w.Body.String(), RetryAfter: w.Header().Get("Retry-After")}
}

var (
	passed   = result{Status: 200, Body: "upstream"}
	rejected = func(body, retryAfter string) result {
		return result{Status: 429, Body: body, RetryAfter: retryAfter}
	}
)

// request returns a GET from the peer 192.0.2.1, changed by the options.
func request(opts ...func(*http.Request)) *http.Request {
	r := httptest.NewRequest("GET", "http://proxy.test/path", nil)
	r.RemoteAddr = "192.0.2.1:40000"
	for _, o := range opts {
		o(r)
	}
	return r
}

func from(remote string) func(*http.Request) {
	return func(r *http.Request) { r.RemoteAddr = remote }
}

func withHeader(k, v string) func(*http.Request) {
	return func(r *http.Request) { r.Header.Add(k, v) }
}

// mustNew is New for a config the test knows to be valid.
func mustNew(t testing.TB, name string, c Config, opts ...Option) *Limiter {
	t.Helper()
	l, err := New(name, c, opts...)
	if err != nil {
		t.Fatalf("New(%q, %+v) error: %v", name, c, err)
	}
	return l
}

// recorder keeps the whole response of one request.
type recorder struct{ *httptest.ResponseRecorder }

func newRecorder(h http.Handler, r *http.Request) recorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return recorder{w}
}

func (w recorder) result() result {
	return result{Status: w.Code, Body: w.Body.String(), RetryAfter: w.Header().Get("Retry-After")}
}
