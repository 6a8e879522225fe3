package main

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestPerSecondExactAtTheLimit: with REDIS_PERSECOND's two stores, 64
// requests at once carrying a shadow_mode rule every request is over and
// an enforced limit of 5, one per-second and the other not (both ways
// round), are let through exactly 5 times, on two memory stores and on two
// Redis: a request is decided in the per-second store, then in the other,
// then let through and charged again, and never passes on a count that
// another request changed in between.
func TestPerSecondExactAtTheLimit(t *testing.T) {
	newRedis := func(t *testing.T) counter.Store {
		srv := redistest.Start(t)
		c, err := redis.NewClient(srv.URL())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		s, err := redis.New(c, redis.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	newMemory := func(*testing.T) counter.Store { return counter.NewMemoryStore(counter.MemoryOptions{}) }
	for _, backend := range []struct {
		name string
		make func(*testing.T) counter.Store
	}{{"memory", newMemory}, {"redis", newRedis}} {
		for _, units := range [][2]string{{"second", "minute"}, {"minute", "second"}} {
			t.Run(fmt.Sprintf("%s/trial per %s, real per %s", backend.name, units[0], units[1]), func(t *testing.T) {
				cfg, err := envoyratelimit.Load([]envoyratelimit.File{{Key: "config.t", Data: []byte(fmt.Sprintf(`domain: d
descriptors:
  - key: trial
    shadow_mode: true
    rate_limit: {unit: %s, requests_per_unit: 0}
  - key: real
    rate_limit: {unit: %s, requests_per_unit: 5}
`, units[0], units[1]))}}, envoyratelimit.LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ev, err := envoyratelimit.NewEvaluator(envoyratelimit.Options{Store: perSecondStore{perSecond: backend.make(t), other: backend.make(t)}})
				if err != nil {
					t.Fatal(err)
				}
				ev = ev.WithConfig(cfg)
				var mu sync.Mutex
				var wg sync.WaitGroup
				admitted := 0
				start := make(chan struct{})
				for range 64 {
					wg.Go(func() {
						<-start
						req := rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{
							{Entries: []rlsmsg.Entry{{Key: "trial", Value: "x"}}},
							{Entries: []rlsmsg.Entry{{Key: "real", Value: "x"}}},
						}}
						var res limit.Result
						if err := ev.Evaluate(context.Background(), psNow, &req, &res); err != nil {
							t.Error(err)
							return
						}
						if res.OverallCode == rlsmsg.CodeOK {
							mu.Lock()
							admitted++
							mu.Unlock()
						}
					})
				}
				close(start)
				wg.Wait()
				if admitted != 5 {
					t.Errorf("64 requests at once at a limit of 5: %d let through, want exactly 5", admitted)
				}
			})
		}
	}
}
