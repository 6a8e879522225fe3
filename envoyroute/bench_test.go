package envoyroute

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rlpkit/rlpkit/yamljson"
)

// BenchmarkEvaluate evaluates, with and without the trace, a login request against examples/envoy-ratelimit's route
// configuration: virtual host, route, two descriptors.
func BenchmarkEvaluate(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "envoy-ratelimit", "route.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	js, err := yamljson.ToJSON(data)
	if err != nil {
		b.Fatal(err)
	}
	c, err := Decode(js, Options{Domain: "shop"})
	if err != nil {
		b.Fatal(err)
	}
	req := Request{Method: "POST", Authority: "api.shop.example", Path: "/login", RemoteAddress: "10.0.0.1:5000"}
	for _, bc := range []struct {
		name string
		eval func(*Request) *Evaluation
	}{{"Evaluate", c.Evaluate}, {"Decide", c.Decide}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ev := bc.eval(&req); len(ev.Calls) != 1 {
					b.Fatal(ev.Trace)
				}
			}
		})
	}
}
