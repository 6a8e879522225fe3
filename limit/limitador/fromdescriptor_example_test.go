package limitador_test

import (
	"context"
	"fmt"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// A filter's descriptors, evaluated in process: descriptor generation, the
// request it holds evaluated over a memory store.
func Example_fromDescriptor() {
	engine, err := descriptor.Compile(&descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{
		RateLimitDomain: "toystore", UpstreamCluster: "rls", Hostnames: []string{"*.toystore.com"},
		GatewayActions: []descriptor.GatewayAction{{Configurations: []descriptor.Configuration{{
			Actions: []descriptor.Action{{RequestHeaders: &descriptor.RequestHeaders{HeaderName: "x-user", DescriptorKey: "user"}}},
		}}}},
	}}})
	if err != nil {
		panic(err)
	}
	ev, err := limitador.NewEvaluator([]limitador.Limit{
		{Namespace: "toystore", Name: "per-user", MaxValue: 2, Seconds: 60, Variables: []string{"user"}},
	}, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		panic(err)
	}
	now := time.Unix(1_699_920_000, 0)
	for range 3 {
		res := engine.Generate(&descriptor.Request{Method: "GET", Host: "api.toystore.com", Path: "/toys",
			Headers: descriptor.HeaderMap{"x-user": {"alice"}}})
		if !res.ShouldCall() {
			continue
		}
		var resp limit.Result
		if err := ev.Evaluate(context.Background(), now, &res.Request, &resp); err != nil {
			panic(err)
		}
		st := resp.Statuses[0]
		fmt.Println(resp.OverallCode, st.CurrentLimit.Name, st.CurrentLimit.RequestsPerUnit, st.CurrentLimit.Unit, st.LimitRemaining)
	}
	// Output:
	// OK per-user 2 MINUTE 1
	// OK per-user 2 MINUTE 0
	// OVER_LIMIT per-user 2 MINUTE 0
}
