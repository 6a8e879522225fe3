package envoyroute

import (
	"testing"
)

// FuzzDecode feeds Decode arbitrary documents and evaluates what it accepts: neither may
// panic.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"virtual_hosts":[{"name":"a","domains":["*"],"routes":[{"match":{"prefix":"/"},"route":{"cluster":"a","rate_limits":[{"actions":[{"remote_address":{}}]}]}}]}]}`))
	f.Add([]byte(`{"route_configuration":{"virtual_hosts":[{"name":"a","domains":["*.x","y*"],"routes":[{"match":{"safe_regex":{"regex":"/a+"},"headers":[{"name":"x","present_match":false}]},"route":{"cluster":"a"}}]}]},"http_filters":[{"name":"r","typed_config":{"@type":"type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit","domain":"d"}}]}`))
	f.Add([]byte(`{"gateways":[{"gateway":"a/b","envoy":{"route_configuration":{}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(data, Options{Domain: "d"})
		if err != nil {
			return
		}
		for _, r := range []Request{{Method: "GET", Authority: "a.x", Path: "/aa?q=1", RemoteAddress: "10.0.0.1"}, {Authority: "y1", Path: "/", Headers: map[string][]string{"x": {"1"}}}} {
			c.Evaluate(&r)
		}
	})
}
