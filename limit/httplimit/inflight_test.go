package httplimit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func inflightConfig(max int64) Config {
	return validConfig(func(c *Config) { c.Type, c.Tag, c.Key, c.Max = TypeInflight, TagHeader, "X-API-Key", max })
}

func keyed(k string) *http.Request { return request(withHeader("X-API-Key", k)) }

// TestInflightHoldsWhileRunning fills the limit with requests blocked in the
// upstream, checks that one more is rejected without holding a count, then
// lets them finish and checks every count is back.
func TestInflightHoldsWhileRunning(t *testing.T) {
	for _, step := range steps {
		t.Run(string(step), func(t *testing.T) {
			l := mustNew(t, "p", inflightConfig(2))
			u := &upstream{block: make(chan struct{}), entered: make(chan struct{})}
			h := front(l, step, u)
			var wg sync.WaitGroup
			results := make([]result, 2)
			for i := range 2 {
				wg.Add(1)
				go func() { defer wg.Done(); results[i] = do(h, keyed("k")) }()
				<-u.entered
			}
			if got := l.InUse("k"); got != 2 {
				t.Errorf("InUse(k) with 2 running = %d, want 2", got)
			}
			if got, want := do(h, keyed("k")), rejected("exceed limit 3/2", ""); got != want {
				t.Errorf("third request = %+v, want %+v", got, want)
			}
			if got := l.InUse("k"); got != 2 {
				t.Errorf("InUse(k) after a rejection = %d, want 2: a rejected request holds no count", got)
			}
			// Another key has its own count.
			if got := do(h, request(withHeader("X-API-Key", "other"), withHeader("X-No-Block", "1"))); got != passed {
				t.Errorf("request with another key = %+v, want %+v", got, passed)
			}
			close(u.block)
			wg.Wait()
			for i, got := range results {
				if got != passed {
					t.Errorf("blocked request %d = %+v, want %+v", i, got, passed)
				}
			}
			if got := l.InUse("k"); got != 0 {
				t.Errorf("InUse(k) after all returned = %d, want 0", got)
			}
			u.block = nil
			if got := do(h, keyed("k")); got != passed {
				t.Errorf("request after release = %+v, want %+v", got, passed)
			}
		})
	}
}

func TestInflightReleasedOnPanic(t *testing.T) {
	l := mustNew(t, "p", inflightConfig(1))
	h := l.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	func() {
		defer func() {
			if r := recover(); r != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler", r)
			}
		}()
		h.ServeHTTP(httptest.NewRecorder(), keyed("k"))
	}()
	if got := l.InUse("k"); got != 0 {
		t.Errorf("InUse(k) after a panic = %d, want 0", got)
	}
}

func TestInflightRoundTripRelease(t *testing.T) {
	t.Run("on body close", func(t *testing.T) {
		l := mustNew(t, "p", inflightConfig(1))
		rt := l.RoundTripper(&upstream{})
		resp, err := rt.RoundTrip(keyed("k"))
		if err != nil {
			t.Fatalf("RoundTrip error: %v", err)
		}
		if got := l.InUse("k"); got != 1 {
			t.Errorf("InUse(k) before the body is closed = %d, want 1", got)
		}
		if b, _ := io.ReadAll(resp.Body); string(b) != "upstream" {
			t.Errorf("body = %q, want upstream", b)
		}
		if got := l.InUse("k"); got != 1 {
			t.Errorf("InUse(k) after reading, before closing = %d, want 1", got)
		}
		resp.Body.Close()
		resp.Body.Close() // twice gives back nothing more
		if got := l.InUse("k"); got != 0 {
			t.Errorf("InUse(k) after close = %d, want 0", got)
		}
	})
	t.Run("on failure", func(t *testing.T) {
		l := mustNew(t, "p", inflightConfig(1))
		rt := l.RoundTripper(&upstream{fail: true})
		if _, err := rt.RoundTrip(keyed("k")); err == nil || !strings.Contains(err.Error(), "upstream unreachable") {
			t.Errorf("RoundTrip error = %v, want the upstream's", err)
		}
		if got := l.InUse("k"); got != 0 {
			t.Errorf("InUse(k) after a failed round trip = %d, want 0", got)
		}
	})
	t.Run("through a reverse proxy that fails", func(t *testing.T) {
		l := mustNew(t, "p", inflightConfig(1))
		h := front(l, StepProxyUpstream, &upstream{fail: true})
		for i := range 2 {
			if got := do(h, keyed("k")); got.Status != http.StatusBadGateway {
				t.Errorf("request %d = %+v, want 502", i, got)
			}
		}
		if got := l.InUse("k"); got != 0 {
			t.Errorf("InUse(k) = %d, want 0", got)
		}
	})
	t.Run("a writable body stays writable", func(t *testing.T) {
		l := mustNew(t, "p", inflightConfig(1))
		conn := &rwBody{}
		rt := l.RoundTripper(roundTripFunc(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: http.StatusSwitchingProtocols, Header: http.Header{}, Body: conn, Request: r}, nil
		}))
		resp, err := rt.RoundTrip(keyed("k"))
		if err != nil {
			t.Fatalf("RoundTrip error: %v", err)
		}
		w, ok := resp.Body.(io.Writer)
		if !ok {
			t.Fatalf("body %T is not writable", resp.Body)
		}
		io.WriteString(w, "ping")
		resp.Body.Close()
		if conn.String() != "ping" || !conn.closed {
			t.Errorf("connection got %q, closed %v; want ping, true", conn.String(), conn.closed)
		}
		if got := l.InUse("k"); got != 0 {
			t.Errorf("InUse(k) after close = %d, want 0", got)
		}
	})
}

// TestInflightConcurrentExact sends many requests with one key at once
// against blocked handlers: exactly max are admitted.
func TestInflightConcurrentExact(t *testing.T) {
	const max, n = 5, 40
	l := mustNew(t, "p", inflightConfig(max))
	release := make(chan struct{})
	h := l.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	var wg sync.WaitGroup
	codes := make(chan int, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := httptest.NewRecorder()
			h.ServeHTTP(w, keyed("k"))
			codes <- w.Code
		}()
	}
	// The rejected ones return at once; the admitted ones wait.
	rejectedN := 0
	for rejectedN < n-max {
		if c := <-codes; c != http.StatusTooManyRequests {
			t.Fatalf("a request returned %d before any was released, want 429", c)
		}
		rejectedN++
	}
	if got := l.InUse("k"); got != max {
		t.Errorf("InUse(k) = %d, want %d", got, max)
	}
	close(release)
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusOK {
			t.Errorf("an admitted request returned %d, want 200", c)
		}
	}
	if got := l.InUse("k"); got != 0 {
		t.Errorf("InUse(k) after all returned = %d, want 0", got)
	}
}

func TestRoundTripperRejectionSkipsUpstream(t *testing.T) {
	l := mustNew(t, "p", inflightConfig(0))
	u := &upstream{}
	body := &closeRecorder{Reader: strings.NewReader("payload")}
	req := keyed("k")
	req.Body = body
	resp, err := l.RoundTripper(u).RoundTrip(req)
	if err != nil {
		t.Fatalf("RoundTrip error: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	got := result{Status: resp.StatusCode, Body: string(b), RetryAfter: resp.Header.Get("Retry-After")}
	if want := rejected("exceed limit 1/0", ""); got != want {
		t.Errorf("RoundTrip = %+v, want %+v", got, want)
	}
	if resp.Status != "429 Too Many Requests" || resp.ContentLength != int64(len(b)) || resp.Request != req {
		t.Errorf("response Status %q, ContentLength %d, Request %p; want 429 Too Many Requests, %d, %p", resp.Status, resp.ContentLength, resp.Request, len(b), req)
	}
	if u.calls.Load() != 0 {
		t.Errorf("upstream called %d times, want 0", u.calls.Load())
	}
	if !body.closed {
		t.Error("request body not closed")
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// rwBody is a connection-like body.
type rwBody struct {
	strings.Builder
	closed bool
}

func (b *rwBody) Read([]byte) (int, error) { return 0, io.EOF }
func (b *rwBody) Close() error             { b.closed = true; return nil }

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }
