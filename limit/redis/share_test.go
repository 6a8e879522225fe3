package redis

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestStoresShareCounters runs two Stores, each with its own client, on one
// Redis: they count on the same counters, unless their key prefixes differ.
func TestStoresShareCounters(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	a := newStore(t, newClient(t, srv), Options{})
	b := newStore(t, newClient(t, srv), Options{})
	other := newStore(t, newClient(t, srv), Options{KeyPrefix: "other:"})
	p := counter.Policy{Max: 3, Window: time.Minute}
	hit := []counter.Update{{Key: "{share}k", Policy: p, Cost: 1}}
	tests := []struct {
		name  string
		store *Store
		want  counter.Decision
	}{
		{"a", a, counter.Decision{Allowed: true, Used: 1, Remaining: 2, ResetAfter: time.Minute}},
		{"b sees a's hit", b, counter.Decision{Allowed: true, Used: 2, Remaining: 1, ResetAfter: time.Minute}},
		{"a sees b's hit", a, counter.Decision{Allowed: true, Used: 3, Remaining: 0, ResetAfter: time.Minute}},
		{"b is over", b, counter.Decision{Used: 4, ResetAfter: time.Minute, RetryAfter: time.Minute}},
		{"another prefix counts apart", other, counter.Decision{Allowed: true, Used: 1, Remaining: 2, ResetAfter: time.Minute}},
	}
	for _, tc := range tests {
		ds := make([]counter.Decision, 1)
		if err := tc.store.Update(ctx, t0, hit, ds); err != nil {
			t.Fatalf("%s: Update: %v", tc.name, err)
		}
		if ds[0] != tc.want {
			t.Errorf("%s: Update = %+v, want %+v", tc.name, ds[0], tc.want)
		}
	}
}

// TestExactAcrossStores has goroutines on two Stores (two clients, one
// Redis) hit one counter at a fixed instant, each request also hitting a
// counter of its own: exactly max requests are admitted, for every
// algorithm, and the own counters count only admitted requests.
func TestExactAcrossStores(t *testing.T) {
	srv := redistest.Start(t)
	stores := []*Store{newStore(t, newClient(t, srv), Options{}), newStore(t, newClient(t, srv), Options{})}
	const (
		goroutines = 8 // per store
		requests   = 60
		max        = 500
	)
	for _, alg := range []counter.Algorithm{counter.AlgorithmFixedWindow, counter.AlgorithmSlidingWindow, counter.AlgorithmTokenBucket, counter.AlgorithmGCRA} {
		t.Run(alg.String(), func(t *testing.T) {
			shared := counter.Policy{Algorithm: alg, Max: max, Window: time.Hour}
			own := counter.Policy{Algorithm: alg, Max: 1_000_000, Window: time.Hour}
			var admitted atomic.Int64
			var wg sync.WaitGroup
			for si, s := range stores {
				for g := range goroutines {
					wg.Go(func() {
						own := counter.Update{Key: fmt.Sprintf("{exact-%s}own%d-%d", alg, si, g), Policy: own, Cost: 1}
						batch := []counter.Update{own, {Key: fmt.Sprintf("{exact-%s}shared", alg), Policy: shared, Cost: 1}}
						ds := make([]counter.Decision, 2)
						mine := 0
						for range requests {
							if err := s.Update(context.Background(), t0, batch, ds); err != nil {
								t.Error(err)
								return
							}
							if ds[0].Allowed && ds[1].Allowed {
								mine++
							}
						}
						admitted.Add(int64(mine))
						// All or nothing: the own counter moved only with the
						// shared one. At a fixed instant every algorithm's Used
						// for a check is the hits taken.
						own.Cost = 0
						if err := s.Update(context.Background(), t0, []counter.Update{own}, ds); err != nil {
							t.Error(err)
							return
						}
						if ds[0].Used != float64(mine) {
							t.Errorf("own counter %s: Used %v, want %d (the requests admitted)", own.Key, ds[0].Used, mine)
						}
					})
				}
			}
			wg.Wait()
			if n := admitted.Load(); n != max {
				t.Errorf("%d goroutines x %d requests on 2 stores admitted %d, want exactly %d", 2*goroutines, requests, n, max)
			}
		})
	}
}
