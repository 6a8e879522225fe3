package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// BenchmarkMemoryPerCounter stores one live counter per op, 100 per
// Update, under each algorithm, and reports Redis's used memory per live
// counter (INFO memory's used_memory, after less before, over b.N): the
// key, its "time count prev" value and its TTL. Run it with a fixed count
// (-benchtime=100000x) for a stable figure.
func BenchmarkMemoryPerCounter(b *testing.B) {
	algs := []counter.Algorithm{counter.AlgorithmFixedWindow, counter.AlgorithmSlidingWindow, counter.AlgorithmTokenBucket, counter.AlgorithmGCRA}
	for _, alg := range algs {
		b.Run(alg.String(), func(b *testing.B) {
			srv := redistest.Start(b)
			c := newClient(b, srv)
			s := newStore(b, c, Options{})
			ctx := context.Background()
			p := counter.Policy{Algorithm: alg, Max: 1000, Window: time.Hour}
			mustDo(b, c, "SET", "warm", "x") // the first key allocates the keyspace
			before := usedMemory(b, c)
			batch := make([]counter.Update, 0, 100)
			ds := make([]counter.Decision, 100)
			flush := func() {
				if err := s.Update(ctx, t0, batch, ds); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
			for i := 0; b.Loop(); i++ {
				batch = append(batch, counter.Update{Key: fmt.Sprintf("{load}user_%08d", i), Policy: p, Cost: 1})
				if len(batch) == cap(batch) {
					flush()
				}
			}
			if len(batch) > 0 {
				flush()
			}
			b.ReportMetric(float64(usedMemory(b, c)-before)/float64(b.N), "bytes/counter")
		})
	}
}

// usedMemory returns INFO memory's used_memory.
func usedMemory(b *testing.B, c goredis.UniversalClient) int64 {
	b.Helper()
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("INFO memory has no used_memory")
	return 0
}
