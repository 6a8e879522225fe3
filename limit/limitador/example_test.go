package limitador_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// A rate-limit service's core: a limits file in Limitador's format
// (converted from YAML by the caller), an Evaluator over the memory store,
// and Envoy's RLS semantics for a request with two descriptors.
func ExampleNewEvaluator() {
	limits, err := limitador.DecodeLimits([]byte(`[
	  {"namespace": "toystore", "name": "admin", "max_value": 2, "seconds": 60,
	   "conditions": ["descriptors[0].admin == 'yes'"], "variables": []},
	  {"namespace": "toystore", "name": "per user", "max_value": 5, "seconds": 3600,
	   "conditions": [], "variables": ["user"]}
	]`))
	if err != nil {
		log.Fatal(err)
	}
	ev, err := limitador.NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{}))
	if err != nil {
		log.Fatal(err)
	}
	now := time.Date(2025, 1, 1, 12, 0, 30, 0, time.UTC)
	req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{
		{Entries: []rlsmsg.Entry{{Key: "admin", Value: "yes"}}},
		{Entries: []rlsmsg.Entry{{Key: "user", Value: "alice"}}},
	}}
	var resp limit.Result // reused: Evaluate allocates nothing once warm
	for range 3 {
		if err := ev.Evaluate(context.Background(), now, &req, &resp); err != nil {
			log.Fatal(err)
		}
		fmt.Print(resp.OverallCode)
		for _, st := range resp.Statuses {
			fmt.Printf(" [%s %s: %d left, reset in %v]", st.Code, st.CurrentLimit.Name, st.LimitRemaining, st.DurationUntilReset)
		}
		fmt.Println()
		now = now.Add(10 * time.Second)
	}
	// Each window starts at its counter's first hit, as limitador counts, so
	// both reset a full window after the first request. The third request is
	// over the admin limit, so it consumes nothing: alice still has 3 hits.

	// Output:
	// OK [OK admin: 1 left, reset in 1m0s] [OK per user: 4 left, reset in 1h0m0s]
	// OK [OK admin: 0 left, reset in 50s] [OK per user: 3 left, reset in 59m50s]
	// OVER_LIMIT [OVER_LIMIT admin: 0 left, reset in 40s] [OK per user: 3 left, reset in 59m40s]
}

// A limits file with mistakes: every problem at once, each with its path.
func ExampleDecodeLimits_errors() {
	_, err := limitador.DecodeLimits([]byte(`[
	  {"namespace": "toystore", "max_value": 10, "seconds": 60, "conditions": [], "variables": []},
	  {"namespace": "toystore", "max_value": -1, "seconds": 0, "conditions": [], "variables": [""]}
	]`))
	fmt.Println(err)
	// Output:
	// limit: [1].max_value: must be greater than or equal to 0
	// limit: [1].seconds: must be greater than 0
	// limit: [1].variables[0]: must not be empty
}
