package redis_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	limitredis "github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Two replicas of a rate-limit service, each with its own client, share one
// budget through Redis: together they admit a user's 3 POSTs a minute, not
// 3 each. (redisURL is the address of a Redis server; this package's
// TestMain starts one.)
func ExampleNew() {
	limits, err := limitador.DecodeLimits([]byte(`[{"namespace": "toystore", "name": "posts per user",
		"max_value": 3, "seconds": 60, "conditions": ["method == 'POST'"], "variables": ["user"]}]`))
	if err != nil {
		log.Fatal(err)
	}
	replica := func() *limitador.Evaluator {
		client, err := limitredis.NewClient(redisURL)
		if err != nil {
			log.Fatal(err)
		}
		store, err := limitredis.New(client, limitredis.Options{KeyPrefix: "rlpkit:"})
		if err != nil {
			log.Fatal(err)
		}
		ev, err := limitador.NewEvaluator(limits, store)
		if err != nil {
			log.Fatal(err)
		}
		return ev
	}
	a, b := replica(), replica()

	now := time.Date(2025, 1, 1, 12, 0, 20, 0, time.UTC)
	req := rlsmsg.Request{Domain: "toystore", Descriptors: []rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{
		{Key: "method", Value: "POST"}, {Key: "user", Value: "alice"},
	}}}}
	for i, ev := range []*limitador.Evaluator{a, b, a, b} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var resp limit.Result
		err := ev.Evaluate(ctx, now, &req, &resp)
		cancel()
		if err != nil {
			log.Fatal(err) // a *limit.StoreError: an RLS server answers Unavailable
		}
		st := resp.Statuses[0]
		fmt.Printf("replica %c: %s, %d left, reset in %v\n", "abab"[i], resp.OverallCode, st.LimitRemaining, st.DurationUntilReset)
	}
	// Output:
	// replica a: OK, 2 left, reset in 1m0s
	// replica b: OK, 1 left, reset in 1m0s
	// replica a: OK, 0 left, reset in 1m0s
	// replica b: OVER_LIMIT, 0 left, reset in 1m0s
}
