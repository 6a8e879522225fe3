package httplimit

import (
	"io"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// discard is a ResponseWriter that costs next to nothing, so the
// benchmarks measure the middleware rather than a recorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}

var bareHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	io.WriteString(w, "ok")
})

// reportRatio reports x-bare: the ns/op just measured over the bare
// handler's, timed here with the same number of iterations, in the same run.
func reportRatio(b *testing.B, r *http.Request) {
	b.StopTimer()
	elapsed := b.Elapsed()
	w := &discard{h: http.Header{}}
	start := time.Now()
	for range b.N {
		bareHandler.ServeHTTP(w, r)
	}
	bare := time.Since(start)
	if bare > 0 {
		b.ReportMetric(float64(elapsed)/float64(bare), "x-bare")
	}
}

func benchRequest() *http.Request {
	r := request(withHeader("X-API-Key", "key-0123456789"), withHeader("Cookie", "a=1; deviceId=dev-42; b=2"))
	r.URL.RawQuery = "page=3&token=tok-99"
	return r
}

func serve(b *testing.B, h http.Handler, r *http.Request) {
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h.ServeHTTP(w, r)
	}
}

// BenchmarkMiddleware is the cost of a request through one limiter, which
// admits it, against the bare handler; x-bare is the ratio of the two
// ns/op.
func BenchmarkMiddleware(b *testing.B) {
	rate := func(tag Tag, key string) Config {
		return validConfig(func(c *Config) { c.Tag, c.Key, c.Max = tag, key, counter.MaxPolicyValue })
	}
	inflight := func(tag Tag, key string) Config {
		return validConfig(func(c *Config) { c.Type, c.Tag, c.Key, c.Max = TypeInflight, tag, key, 1 })
	}
	cases := []struct {
		name string
		c    Config
	}{
		{"rate/ip", rate(TagIP, "")},
		{"rate/header", rate(TagHeader, "X-API-Key")},
		{"rate/cookie", rate(TagCookie, "deviceId")},
		{"rate/query", rate(TagQuery, "token")},
		{"inflight/ip", inflight(TagIP, "")},
		{"inflight/header", inflight(TagHeader, "X-API-Key")},
	}
	b.Run("bare", func(b *testing.B) {
		serve(b, bareHandler, benchRequest())
	})
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			h := mustNew(b, "p", tc.c).Handler(bareHandler)
			r := benchRequest()
			serve(b, h, r)
			reportRatio(b, r)
		})
	}
}

// BenchmarkMiddlewareParallel is rate/ip with every goroutine a different
// client, on all cores.
func BenchmarkMiddlewareParallel(b *testing.B) {
	run := func(b *testing.B, h http.Handler) {
		var n atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			r := benchRequest()
			r.RemoteAddr = "192.0.2." + strconv.FormatInt(n.Add(1)%250, 10) + ":1"
			w := &discard{h: http.Header{}}
			for pb.Next() {
				h.ServeHTTP(w, r)
			}
		})
	}
	b.Run("bare", func(b *testing.B) { run(b, bareHandler) })
	b.Run("rate/ip", func(b *testing.B) {
		c := validConfig(func(c *Config) { c.Max = counter.MaxPolicyValue })
		run(b, mustNew(b, "p", c).Handler(bareHandler))
	})
}

// BenchmarkRejection is the cost of turning a request away.
func BenchmarkRejection(b *testing.B) {
	c := validConfig(func(c *Config) { c.Max = 0 })
	h := mustNew(b, "p", c, WithClock(func() time.Time { return t0 })).Handler(bareHandler)
	serve(b, h, benchRequest())
}
