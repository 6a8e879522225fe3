package httplimit

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Each row of pingap's behaviour table, at both steps.

func TestMissingOrEmptyKeyIsNotLimited(t *testing.T) {
	tests := []struct {
		name string
		tag  Tag
		req  *http.Request
	}{
		{name: "header missing", tag: TagHeader, req: request()},
		{name: "header empty", tag: TagHeader, req: request(withHeader("X-API-Key", ""))},
		{name: "cookie missing", tag: TagCookie, req: request(withHeader("Cookie", "other=1"))},
		{name: "cookie empty", tag: TagCookie, req: request(withHeader("Cookie", "X-API-Key="))},
		{name: "query missing", tag: TagQuery, req: request(func(r *http.Request) { r.URL.RawQuery = "a=1" })},
		{name: "query empty", tag: TagQuery, req: request(func(r *http.Request) { r.URL.RawQuery = "X-API-Key=" })},
		{name: "ip without peer", tag: TagIP, req: request(from(""))},
	}
	for _, typ := range []Type{TypeRate, TypeInflight} {
		for _, step := range steps {
			for _, tc := range tests {
				t.Run(fmt.Sprintf("%s/%s/%s", typ, step, tc.name), func(t *testing.T) {
					// max 0 would reject any request that had a key.
					c := validConfig(func(c *Config) { c.Type, c.Tag, c.Key, c.Max = typ, tc.tag, "X-API-Key", 0 })
					u := &upstream{}
					h := front(mustNew(t, "p", c), step, u)
					for i := range 3 {
						if got := do(h, tc.req.Clone(tc.req.Context())); got != passed {
							t.Fatalf("request %d = %+v, want %+v", i, got, passed)
						}
					}
					if got := u.calls.Load(); got != 3 {
						t.Errorf("upstream calls = %d, want 3", got)
					}
				})
			}
		}
	}
}

func TestWithinLimitPasses(t *testing.T) {
	for _, typ := range []Type{TypeRate, TypeInflight} {
		for _, step := range steps {
			t.Run(fmt.Sprintf("%s/%s", typ, step), func(t *testing.T) {
				clock := newFakeClock()
				c := validConfig(func(c *Config) { c.Type, c.Max = typ, 5 })
				u := &upstream{}
				h := front(mustNew(t, "p", c, WithClock(clock.Now)), step, u)
				for i := range 5 {
					if got := do(h, request()); got != passed {
						t.Fatalf("request %d = %+v, want %+v", i, got, passed)
					}
				}
			})
		}
	}
}

func TestOverLimit(t *testing.T) {
	tests := []struct {
		name string
		c    Config
		pass int // requests admitted first
		want result
	}{
		{
			name: "rate: 429, value/max in max's unit, Retry-After the interval",
			c:    validConfig(func(c *Config) { c.Max, c.Weight = 10, 100 }),
			pass: 10,
			want: rejected("exceed limit 11/10", "10"),
		},
		{
			name: "rate: pingap example 600 per 60s",
			c:    validConfig(func(c *Config) { c.Max, c.Interval = 600, time.Minute }),
			pass: 1200,
			want: rejected("exceed limit 600.5/600", "60"),
		},
		{
			name: "rate: Retry-After rounds the interval up",
			c:    validConfig(func(c *Config) { c.Max, c.Interval, c.Weight = 3, 1500*time.Millisecond, 100 }),
			pass: 3,
			want: rejected("exceed limit 4/3", "2"),
		},
		{
			name: "inflight: 429 with the count, no Retry-After",
			c:    validConfig(func(c *Config) { c.Type, c.Max = TypeInflight, 0 }),
			want: rejected("exceed limit 1/0", ""),
		},
	}
	for _, step := range steps {
		for _, tc := range tests {
			t.Run(string(step)+"/"+tc.name, func(t *testing.T) {
				clock := newFakeClock()
				u := &upstream{}
				h := front(mustNew(t, "p", tc.c, WithClock(clock.Now)), step, u)
				for i := range tc.pass {
					if got := do(h, request()); got != passed {
						t.Fatalf("request %d = %+v, want %+v", i, got, passed)
					}
				}
				w := newRecorder(h, request())
				if diff := cmp.Diff(tc.want, w.result()); diff != "" {
					t.Errorf("request %d mismatch (-want +got):\n%s", tc.pass, diff)
				}
				if got := w.Header().Get("Content-Type"); got != "text/plain; charset=utf-8" {
					t.Errorf("Content-Type = %q, want text/plain; charset=utf-8", got)
				}
				if got := u.calls.Load(); got != int64(tc.pass) {
					t.Errorf("upstream calls = %d, want %d: a rejected request must not reach it", got, tc.pass)
				}
			})
		}
	}
}

func TestMaxZeroRejectsEverything(t *testing.T) {
	for _, typ := range []Type{TypeRate, TypeInflight} {
		for _, weight := range []int{0, 50, 100} {
			for _, step := range steps {
				t.Run(fmt.Sprintf("%s/weight %d/%s", typ, weight, step), func(t *testing.T) {
					clock := newFakeClock()
					c := validConfig(func(c *Config) { c.Type, c.Max, c.Weight = typ, 0, weight })
					u := &upstream{}
					h := front(mustNew(t, "p", c, WithClock(clock.Now)), step, u)
					for i := range 3 {
						clock.Set(t0.Add(time.Duration(i) * 10 * time.Second)) // fresh windows too
						if got := do(h, request()); got.Status != http.StatusTooManyRequests {
							t.Fatalf("request %d = %+v, want 429", i, got)
						}
					}
					if got := u.calls.Load(); got != 0 {
						t.Errorf("upstream calls = %d, want 0", got)
					}
				})
			}
		}
	}
}

// rateStep is a burst of requests at an instant.
type rateStep struct {
	at       time.Duration // since t0
	n        int           // requests sent
	admitted int           // of which admitted (the first ones)
	body     string        // body of the first rejection, if any
}

func TestRateWeightedSlidingWindow(t *testing.T) {
	tests := []struct {
		name  string
		c     Config
		steps []rateStep
	}{
		{
			// value = (prev*0.5 + curr*0.5)/10 against 10/10: prev+curr <= 20.
			name: "weight 50",
			c:    validConfig(func(c *Config) { c.Max = 10 }),
			steps: []rateStep{
				{at: 0, n: 21, admitted: 20, body: "exceed limit 10.5/10"},
				{at: 9 * time.Second, n: 1, admitted: 0, body: "exceed limit 10.5/10"},
				{at: 10 * time.Second, n: 1, admitted: 0, body: "exceed limit 10.5/10"},   // prev 20
				{at: 20 * time.Second, n: 21, admitted: 20, body: "exceed limit 10.5/10"}, // prev 0
				{at: 30 * time.Second, n: 5, admitted: 0, body: "exceed limit 10.5/10"},
				{at: 45 * time.Second, n: 25, admitted: 20, body: "exceed limit 10.5/10"}, // prev of 30s window: 0
			},
		},
		{
			// value = prev/10 against 1: a window is judged by the one before.
			name: "weight 0 uses the previous window alone",
			c:    validConfig(func(c *Config) { c.Max, c.Weight = 10, 0 }),
			steps: []rateStep{
				{at: 0, n: 15, admitted: 15},
				{at: 10 * time.Second, n: 3, admitted: 0, body: "exceed limit 15/10"},
				{at: 20 * time.Second, n: 10, admitted: 10}, // prev 0
				{at: 30 * time.Second, n: 10, admitted: 10}, // prev 10: 10/10 is not over
			},
		},
		{
			name: "weight 100 uses the current window alone",
			c:    validConfig(func(c *Config) { c.Max, c.Weight = 10, 100 }),
			steps: []rateStep{
				{at: 0, n: 11, admitted: 10, body: "exceed limit 11/10"},
				{at: 10 * time.Second, n: 11, admitted: 10, body: "exceed limit 11/10"},
			},
		},
		{
			// value = (p*0.5 + c*0.5)/0.5 against 10/max(0.5, 1) = 10:
			// without the floor the budget would be 20 a second.
			name: "interval floored at one second",
			c:    validConfig(func(c *Config) { c.Max, c.Interval = 10, 500*time.Millisecond }),
			steps: []rateStep{
				{at: 0, n: 11, admitted: 10, body: "exceed limit 11/10"},
				{at: 500 * time.Millisecond, n: 1, admitted: 0, body: "exceed limit 11/10"}, // prev 10: (5 + 0.5)/0.5
				{at: 1500 * time.Millisecond, n: 11, admitted: 10, body: "exceed limit 11/10"},
			},
		},
		{
			// 600 per 60 s means 10 a second on average; weight 50 lets a
			// fresh client send twice that in its first window.
			name: "pingap example",
			c:    validConfig(func(c *Config) { c.Max, c.Interval = 600, time.Minute }),
			steps: []rateStep{
				{at: 0, n: 1201, admitted: 1200, body: "exceed limit 600.5/600"},
				{at: time.Minute, n: 1, admitted: 0, body: "exceed limit 600.5/600"},
				{at: 2 * time.Minute, n: 600, admitted: 600},
				{at: 3 * time.Minute, n: 601, admitted: 600, body: "exceed limit 600.5/600"},
			},
		},
	}
	for _, step := range steps {
		for _, tc := range tests {
			t.Run(string(step)+"/"+tc.name, func(t *testing.T) {
				clock := newFakeClock()
				u := &upstream{}
				h := front(mustNew(t, "p", tc.c, WithClock(clock.Now)), step, u)
				for _, s := range tc.steps {
					clock.Set(t0.Add(s.at))
					admitted, body := 0, ""
					for range s.n {
						got := do(h, request())
						switch {
						case got == passed:
							if body != "" {
								t.Fatalf("at %v: admitted after a rejection", s.at)
							}
							admitted++
						case got.Status == http.StatusTooManyRequests:
							if body == "" {
								body = got.Body
							}
						default:
							t.Fatalf("at %v: got %+v", s.at, got)
						}
					}
					if admitted != s.admitted || body != s.body {
						t.Errorf("at %v, %d requests: admitted %d, first rejection %q; want %d, %q",
							s.at, s.n, admitted, body, s.admitted, s.body)
					}
				}
			})
		}
	}
}

func TestRateKeysAreSeparate(t *testing.T) {
	tests := []struct {
		name  string
		c     Config
		a, b  *http.Request
		equal bool // a and b have the same key
	}{
		{name: "ip", c: validConfig(nil), a: request(from("192.0.2.1:1")), b: request(from("192.0.2.2:1"))},
		{name: "ip ignores the port", c: validConfig(nil), a: request(from("192.0.2.1:1")), b: request(from("192.0.2.1:2")), equal: true},
		{name: "ip v4-mapped", c: validConfig(nil), a: request(from("192.0.2.1:1")), b: request(from("[::ffff:192.0.2.1]:2")), equal: true},
		{
			name: "header", c: validConfig(func(c *Config) { c.Tag, c.Key = TagHeader, "x-api-key" }),
			a: request(withHeader("X-Api-Key", "a")), b: request(withHeader("X-API-KEY", "b")),
		},
		{
			name: "header name is case-insensitive", c: validConfig(func(c *Config) { c.Tag, c.Key = TagHeader, "x-api-key" }),
			a: request(withHeader("X-Api-Key", "a"), from("192.0.2.1:1")), b: request(withHeader("X-API-KEY", "a"), from("192.0.2.9:1")), equal: true,
		},
		{
			name: "cookie", c: validConfig(func(c *Config) { c.Tag, c.Key = TagCookie, "deviceId" }),
			a: request(withHeader("Cookie", "deviceId=a")), b: request(withHeader("Cookie", "deviceId=b")),
		},
		{
			name: "query", c: validConfig(func(c *Config) { c.Tag, c.Key = TagQuery, "token" }),
			a: request(func(r *http.Request) { r.URL.RawQuery = "token=a" }), b: request(func(r *http.Request) { r.URL.RawQuery = "token=a+" }),
		},
		{
			name: "query unescaped", c: validConfig(func(c *Config) { c.Tag, c.Key = TagQuery, "token" }),
			a: request(func(r *http.Request) { r.URL.RawQuery = "token=a%20b" }), b: request(func(r *http.Request) { r.URL.RawQuery = "token=a+b" }), equal: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			c.Max, c.Weight = 1, 100
			clock := newFakeClock()
			h := front(mustNew(t, "p", c, WithClock(clock.Now)), StepRequest, &upstream{})
			if got := do(h, tc.a); got != passed {
				t.Fatalf("first request = %+v, want %+v", got, passed)
			}
			got := do(h, tc.b)
			if tc.equal && got.Status != http.StatusTooManyRequests {
				t.Errorf("second request = %+v, want 429: same key", got)
			}
			if !tc.equal && got != passed {
				t.Errorf("second request = %+v, want %+v: another key", got, passed)
			}
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	c := validConfig(func(c *Config) { c.Max, c.Weight = 1, 100 })
	tests := []struct {
		name    string
		trusted []string
		a, b    *http.Request
		equal   bool
	}{
		{
			name:  "without trusted proxies every client behind a proxy is the proxy",
			a:     request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "203.0.113.1")),
			b:     request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "203.0.113.2")),
			equal: true,
		},
		{
			name: "through a trusted proxy clients are told apart", trusted: []string{"10.0.0.0/8"},
			a: request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "203.0.113.1")),
			b: request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "203.0.113.2")),
		},
		{
			name: "a forged first hop does not give a fresh key", trusted: []string{"10.0.0.0/8"},
			a:     request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "1.1.1.1, 203.0.113.1")),
			b:     request(from("10.0.0.2:1"), withHeader("X-Forwarded-For", "2.2.2.2, 203.0.113.1")),
			equal: true,
		},
		{
			name: "an untrusted peer's header is ignored", trusted: []string{"10.0.0.0/8"},
			a:     request(from("192.0.2.1:1"), withHeader("X-Forwarded-For", "203.0.113.1")),
			b:     request(from("192.0.2.1:1"), withHeader("X-Forwarded-For", "203.0.113.2")),
			equal: true,
		},
		{
			name: "mapped prefix", trusted: []string{"::ffff:10.0.0.0/104"},
			a: request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "203.0.113.1")),
			b: request(from("10.0.0.1:1"), withHeader("X-Forwarded-For", "203.0.113.2")),
		},
	}
	for _, step := range steps {
		for _, tc := range tests {
			t.Run(string(step)+"/"+tc.name, func(t *testing.T) {
				clock := newFakeClock()
				l := mustNew(t, "p", c, WithClock(clock.Now), WithTrustedProxies(prefixes(tc.trusted...)...))
				h := front(l, step, &upstream{})
				if got := do(h, tc.a); got != passed {
					t.Fatalf("first request = %+v, want %+v", got, passed)
				}
				got := do(h, tc.b)
				if tc.equal && got.Status != http.StatusTooManyRequests {
					t.Errorf("second request = %+v, want 429: same client", got)
				}
				if !tc.equal && got != passed {
					t.Errorf("second request = %+v, want %+v: another client", got, passed)
				}
			})
		}
	}
}
