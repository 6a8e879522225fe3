package envoyxds

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/envoyroute"
)

// TestEnvoyrouteAgrees holds package envoyroute, the evaluator "rlpkit test" and "rlpkit
// simulate" run Envoy configurations with, to this package's own interpreter of Envoy:
// for random configurations translated by Translate, both send the same calls.
func TestEnvoyrouteAgrees(t *testing.T) {
	const configs, perConfig = 200, 100
	rng := rand.New(rand.NewPCG(9, 9))
	for i := range configs {
		cfg := randomConfig(rng)
		out, err := Translate(cfg, Options{})
		if err != nil {
			t.Fatalf("Translate(random configuration %d) = %v", i, err)
		}
		var filters []envoyroute.Filter
		for _, f := range out.HTTPFilters {
			fc := new(ratelimitv3.RateLimit)
			if err := f.GetTypedConfig().UnmarshalTo(fc); err != nil {
				t.Fatal(err)
			}
			filters = append(filters, envoyroute.Filter{Name: f.Name, Config: fc})
		}
		ev, err := envoyroute.New(out.RouteConfiguration, filters, envoyroute.Options{})
		if err != nil {
			t.Fatalf("envoyroute.New(random configuration %d) = %v", i, err)
		}
		v := newVocabulary(cfg)
		for range perConfig {
			req := v.probe(rng)
			want, err := simulate(out, req.envoyRequest(t))
			if err != nil {
				t.Fatal(err)
			}
			got := routeCalls(ev, &req)
			if diff := cmp.Diff(want, got); diff != "" {
				js, _ := json.Marshal(cfg)
				rq, _ := json.Marshal(req)
				t.Fatalf("configuration %d, request %s: calls differ (-interpreter +envoyroute):\n%s\n%s", i, rq, diff, js)
			}
		}
	}
}

// routeCalls evaluates req with envoyroute, written as the interpreter's calls.
func routeCalls(c *envoyroute.Config, req *testRequest) []rlsCall {
	in := &envoyroute.Request{Method: req.Method, Authority: req.Host, Path: req.path(), Headers: req.headers(),
		RemoteAddress: req.RemoteAddress, HitsAddend: req.HitsAddend}
	if req.DynamicMetadata != nil {
		in.Metadata = descriptor.Metadata(req.DynamicMetadata)
	}
	var out []rlsCall
	for _, call := range c.Evaluate(in).Calls {
		rc := rlsCall{Filter: call.Filter, Domain: call.Request.Domain, HitsAddend: call.Request.HitsAddend}
		for _, f := range c.Filters() {
			if f.Name == call.Filter {
				rc.Cluster = f.Config.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName()
			}
		}
		for _, d := range call.Request.Descriptors {
			rc.Descriptors = append(rc.Descriptors, simDescriptor{Entries: d.Entries, Limit: d.Limit, HitsAddend: d.HitsAddend})
		}
		out = append(out, rc)
	}
	return out
}
