package redis_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	limitredis "github.com/rlpkit/rlpkit/limit/redis"
)

// An RLS evaluator whose counters live in Redis, shared by every replica
// that points at the same server.
func ExampleNew() {
	client, err := limitredis.NewClient("redis://127.0.0.1:6379/0")
	if err != nil {
		log.Fatal(err)
	}
	defer client.Close()
	store, err := limitredis.New(client, limitredis.Options{KeyPrefix: "rlpkit:", ServerTime: true})
	if err != nil {
		log.Fatal(err)
	}
	limits, err := limit.DecodeLimits([]byte(`[{"namespace": "toystore", "max_value": 5, "seconds": 60,
		"conditions": ["descriptors[0]['method'] == 'POST'"], "variables": ["user"]}]`))
	if err != nil {
		log.Fatal(err)
	}
	ev, err := limit.NewEvaluator(limits, store)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	var resp limit.Response
	req := limit.Request{Domain: "toystore", Descriptors: []limit.Descriptor{{Entries: []limit.Entry{
		{Key: "method", Value: "POST"}, {Key: "user", Value: "alice"},
	}}}}
	if err := ev.Evaluate(ctx, time.Now(), &req, &resp); err != nil {
		log.Fatal(err) // an RLS server answers Unavailable
	}
	fmt.Println(resp.Code)
}
