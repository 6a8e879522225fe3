package cached

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// BenchmarkUpdate compares one decision of a fixed window by the exact
// store (limit/redis) and by this one, serially and from 8 goroutines per
// core, with the Redis round trips per decision as a metric. The
// approximate store runs its flush timer at the default period; with its
// default allowance (Max/10, here 429,496,729) it flushes once a period,
// with an allowance of 100 (store=cached-allowance100) a decision in 100
// waits for a flush.
func BenchmarkUpdate(b *testing.B) {
	srv := redistest.Start(b)
	p := counter.Policy{Max: counter.MaxPolicyValue, Window: time.Hour}
	ctx := context.Background()
	exactClient, approxClient := newClient(b, srv), newClient(b, srv)
	var exactTrips, approxTrips commands
	exactClient.AddHook(&exactTrips)
	approxClient.AddHook(&approxTrips)
	exact, err := redis.New(exactClient, redis.Options{})
	if err != nil {
		b.Fatal(err)
	}
	approx := newStore(b, approxClient, Options{FlushPeriod: DefaultFlushPeriod})
	small := newStore(b, approxClient, Options{FlushPeriod: DefaultFlushPeriod, MaxUnflushed: 100})
	stores := []struct {
		name  string
		store counter.Store
		trips *commands
	}{
		{"store=redis", exact, &exactTrips},
		{"store=cached", approx, &approxTrips},
		{"store=cached-allowance100", small, &approxTrips},
	}
	for _, n := range []int{1, 3} {
		for _, st := range stores {
			updates := make([]counter.Update, n)
			for i := range updates {
				updates[i] = counter.Update{Key: fmt.Sprintf("{bench}%s-%d-%d", st.name, n, i), Policy: p, Cost: 1}
			}
			if err := st.store.Update(ctx, t0, updates, make([]counter.Decision, n)); err != nil { // connect, load the script
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/updates=%d", st.name, n), func(b *testing.B) {
				ds := make([]counter.Decision, n)
				st.trips.take()
				b.ReportAllocs()
				for b.Loop() {
					if err := st.store.Update(ctx, t0, updates, ds); err != nil {
						b.Fatal(err)
					}
				}
				_, trips := st.trips.take()
				b.ReportMetric(float64(trips)/float64(b.N), "roundtrips/op")
			})
			b.Run(fmt.Sprintf("%s/updates=%d/parallel", st.name, n), func(b *testing.B) {
				b.SetParallelism(8)
				st.trips.take()
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					ds := make([]counter.Decision, n)
					for pb.Next() {
						if err := st.store.Update(ctx, t0, updates, ds); err != nil {
							b.Error(err)
							return
						}
					}
				})
				_, trips := st.trips.take()
				b.ReportMetric(float64(trips)/float64(b.N), "roundtrips/op")
			})
		}
	}
}

// BenchmarkUpdateBatch is one batch of distinct fixed windows decided
// locally (no flush during the benchmark): its work, done under the
// store's mutex, must grow linearly with the batch.
func BenchmarkUpdateBatch(b *testing.B) {
	srv := redistest.Start(b)
	p := counter.Policy{Max: counter.MaxPolicyValue, Window: time.Hour}
	for _, n := range []int{1_000, 10_000, 40_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			s := newStore(b, newClient(b, srv), Options{MaxUnflushed: counter.MaxPolicyValue, MaxCounters: n})
			updates := make([]counter.Update, n)
			for i := range updates {
				updates[i] = counter.Update{Key: fmt.Sprintf("{bench}batch-%d", i), Policy: p, Cost: 1}
			}
			ds := make([]counter.Decision, n)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Update(context.Background(), t0, updates, ds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
