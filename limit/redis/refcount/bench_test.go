package refcount

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// BenchmarkUpdate compares one request of 1 and 3 counters, concurrent
// callers, on this store and on rlpkit's default store (limit/redis), on
// one local redis-server.
func BenchmarkUpdate(b *testing.B) {
	srv := redistest.Start(b)
	c, err := redis.NewClient(srv.URL())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	ref, err := New(c, Options{JitterMaxSeconds: DefaultJitterMaxSeconds})
	if err != nil {
		b.Fatal(err)
	}
	def, err := redis.New(c, redis.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 3} {
		for _, st := range []struct {
			name string
			s    counter.Store
		}{{"reference", ref}, {"default", def}} {
			b.Run(st.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					us := make([]counter.Update, n)
					for i := range us {
						us[i] = counter.Update{Key: "{d}" + st.name + strconv.Itoa(i), Policy: fixed(1<<32-1, time.Hour), Cost: 1}
					}
					ds := make([]counter.Decision, n)
					for pb.Next() {
						if err := st.s.Update(context.Background(), time.Now(), us, ds); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	}
}
