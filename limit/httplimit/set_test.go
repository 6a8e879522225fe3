package httplimit

import (
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/netip"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadPlacesPluginsByStep(t *testing.T) {
	set, err := Load([]byte(pingapExamples))
	if err != nil {
		t.Fatalf("Load(pingap examples) error: %v", err)
	}
	var names []string
	for _, l := range set.Limiters() {
		names = append(names, l.Name()+"@"+string(l.Config().Step))
	}
	if diff := cmp.Diff([]string{"rateLimit@request", "userInflight@request", "upstreamGuard@proxy_upstream"}, names); diff != "" {
		t.Errorf("Limiters() mismatch (-want +got):\n%s", diff)
	}
}

// TestCacheHitsAreNotCharged puts a cache in front of a reverse proxy: the
// proxy_upstream limiter only counts what reaches the upstream, the request
// limiter counts everything.
func TestCacheHitsAreNotCharged(t *testing.T) {
	const conf = `
[plugins.abuse]
category = "limit"
type = "rate"
tag = "header"
key = "X-API-Key"
max = 3
weight = 100

[plugins.origin]
category = "limit"
type = "rate"
tag = "header"
key = "X-API-Key"
max = 1
weight = 100
step = "proxy_upstream"
`
	clock := newFakeClock()
	set, err := Load([]byte(conf), WithClock(clock.Now))
	if err != nil {
		t.Fatalf("Load error: %v", err)
	}
	u := &upstream{}
	target, _ := url.Parse("http://upstream.test")
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(pr *httputil.ProxyRequest) { pr.SetURL(target) },
		Transport: set.RoundTripper(u),
		ErrorLog:  log.New(io.Discard, "", 0),
	}
	cache := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/cached" {
			io.WriteString(w, "cached")
			return
		}
		proxy.ServeHTTP(w, r)
	})
	h := set.Handler(cache)
	path := func(p string) func(*http.Request) { return func(r *http.Request) { r.URL.Path = p } }
	key := withHeader("X-API-Key", "k")
	steps := []struct {
		path string
		want result
	}{
		{"/cached", result{Status: 200, Body: "cached"}},
		{"/origin", passed},
		{"/origin", rejected("exceed limit 2/1", "10")}, // origin's budget
		{"/cached", rejected("exceed limit 4/3", "10")}, // abuse's budget counts everything
	}
	for i, s := range steps {
		if got := do(h, request(key, path(s.path))); got != s.want {
			t.Errorf("request %d to %s = %+v, want %+v", i, s.path, got, s.want)
		}
	}
	if got := u.calls.Load(); got != 1 {
		t.Errorf("upstream calls = %d, want 1", got)
	}
}

// TestKeyFromInbound strips the key header on the way to the upstream: the
// proxy_upstream limiter still keys on what the client sent when the set's
// handler is in front, and sees no key (not limited) when it is not.
func TestKeyFromInbound(t *testing.T) {
	c := inflightConfig(0)
	c.Step = StepProxyUpstream
	set, err := NewSet([]Plugin{{Name: "guard", Config: c}})
	if err != nil {
		t.Fatalf("NewSet error: %v", err)
	}
	target, _ := url.Parse("http://upstream.test")
	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Header.Del("X-API-Key")
		},
		Transport: set.RoundTripper(&upstream{}),
		ErrorLog:  log.New(io.Discard, "", 0),
	}
	if got, want := do(set.Handler(proxy), keyed("k")), rejected("exceed limit 1/0", ""); got != want {
		t.Errorf("through Set.Handler = %+v, want %+v", got, want)
	}
	if got := do(proxy, keyed("k")); got != passed {
		t.Errorf("without it = %+v, want %+v (the outgoing request has no key)", got, passed)
	}
}

func TestSetOrder(t *testing.T) {
	// An in-flight limiter first, a rate limiter second: a request the
	// second rejects gives the first its count back.
	first := inflightConfig(1)
	second := validConfig(func(c *Config) { c.Max = 0 })
	set, err := NewSet([]Plugin{{Name: "first", Config: first}, {Name: "second", Config: second}})
	if err != nil {
		t.Fatalf("NewSet error: %v", err)
	}
	h := set.Handler(&upstream{})
	for i := range 2 {
		if got := do(h, keyed("k")); got.Body != "exceed limit 0.5/0" {
			t.Errorf("request %d = %+v, want the second plugin's rejection", i, got)
		}
	}
	if got := set.Limiters()[0].InUse("k"); got != 0 {
		t.Errorf("first plugin InUse(k) = %d, want 0", got)
	}
}

func TestNewSetErrors(t *testing.T) {
	bad := validConfig(func(c *Config) { c.Max, c.Step = -1, "later" })
	tests := []struct {
		name    string
		plugins []Plugin
		want    string
	}{
		{
			name:    "invalid configs, all reported",
			plugins: []Plugin{{Name: "a", Config: bad}, {Name: "b.c", Config: validConfig(func(c *Config) { c.Tag = TagQuery })}},
			want: "httplimit: plugins.a.max: must not be negative, got -1\n" +
				"httplimit: plugins.a.step: unknown step \"later\", want \"request\" or \"proxy_upstream\"\n" +
				"httplimit: plugins.\"b.c\".key: required when tag is \"query\"",
		},
		{
			name:    "duplicate name",
			plugins: []Plugin{{Name: "a", Config: validConfig(nil)}, {Name: "a", Config: validConfig(nil)}},
			want:    "httplimit: plugins.a: defined twice",
		},
		{
			name:    "empty name",
			plugins: []Plugin{{Config: validConfig(nil)}},
			want:    "httplimit: plugins: a plugin has an empty name",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewSet(tc.plugins)
			if err == nil || err.Error() != tc.want {
				t.Errorf("NewSet(%+v) error = %v, want %q", tc.plugins, err, tc.want)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name   string
		plugin string
		c      Config
		opts   []Option
		want   string
	}{
		{name: "empty name", c: validConfig(nil), want: "httplimit: New: empty plugin name"},
		{name: "invalid config", plugin: "p", c: validConfig(func(c *Config) { c.Weight = 200 }), want: "httplimit: weight: must be between 0 and 100, got 200"},
		{
			name: "invalid prefix", plugin: "p", c: validConfig(nil),
			opts: []Option{WithTrustedProxies(netip.Prefix{})},
			want: "httplimit: WithTrustedProxies: invalid prefix invalid Prefix",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.plugin, tc.c, tc.opts...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("New(%q, ...) error = %v, want %q", tc.plugin, err, tc.want)
			}
		})
	}
}
