package benchcmp

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"golang.org/x/time/rate"
)

// BenchmarkSingleKey compares one token bucket decision with a clock read:
// golang.org/x/time/rate's Limiter.Allow and counter.Limiter.Allow, both with
// burst 1,000 and 1,000,000 tokens per second so that most calls admit.
func BenchmarkSingleKey(b *testing.B) {
	b.Run("x-time-rate", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1_000_000), 1000)
		b.ReportAllocs()
		for b.Loop() {
			l.Allow()
		}
	})
	b.Run("limit", func(b *testing.B) {
		l, err := counter.NewLimiter(counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 1000, Window: time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			l.Allow()
		}
	})
	b.Run("x-time-rate-parallel", func(b *testing.B) {
		l := rate.NewLimiter(rate.Limit(1_000_000), 1000)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Allow()
			}
		})
	})
	b.Run("limit-parallel", func(b *testing.B) {
		l, err := counter.NewLimiter(counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 1000, Window: time.Millisecond})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				l.Allow()
			}
		})
	})
}

const keyCount = 100_000

var offset atomic.Uint64

// BenchmarkKeyed compares a keyed in-memory decision (one of 100,000
// counters, parallel) with its floor: a map lookup plus one clock read.
func BenchmarkKeyed(b *testing.B) {
	keys := make([]string, keyCount)
	for i := range keys {
		keys[i] = "user-" + strconv.Itoa(i)
	}
	b.Run("map-lookup-clock", func(b *testing.B) {
		m := make(map[string]int64, keyCount)
		for i, k := range keys {
			m[strings.Clone(k)] = int64(i)
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := offset.Add(7919)
			var sink int64
			for pb.Next() {
				i++
				sink += m[keys[i%keyCount]] + time.Now().UnixNano()
			}
			_ = sink
		})
	})
	b.Run("memory-store", func(b *testing.B) {
		p := counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: counter.MaxPolicyValue, Window: time.Hour}
		m := counter.NewMemoryStore(counter.MemoryOptions{})
		for _, k := range keys {
			m.UpdateOne(time.Now(), counter.Update{Key: k, Policy: p, Cost: 1})
		}
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			i := offset.Add(7919)
			for pb.Next() {
				i++
				if _, err := m.UpdateOne(time.Now(), counter.Update{Key: keys[i%keyCount], Policy: p, Cost: 1}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// TestStaleTimestamps feeds 100,000 requests whose timestamps alternate
// between t0+1s and t0 to a bucket of burst 10 refilling 10 per second. The
// elapsed time allows at most 10 + 10 = 20.
func TestStaleTimestamps(t *testing.T) {
	t0 := time.Unix(1_699_920_000, 0)
	at := func(i int) time.Time {
		if i%2 == 0 {
			return t0.Add(time.Second)
		}
		return t0
	}

	xl := rate.NewLimiter(10, 10)
	xl.AllowN(t0, 0) // start the limiter's clock at t0
	xAdmitted := 0
	for i := range 100_000 {
		if xl.AllowN(at(i), 1) {
			xAdmitted++
		}
	}

	ll, err := counter.NewLimiter(counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 10, Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ll.AllowN(t0, 0)
	lAdmitted := 0
	for i := range 100_000 {
		if ll.AllowN(at(i), 1).Allowed {
			lAdmitted++
		}
	}

	t.Logf("x/time/rate admitted %d of 100,000; limit admitted %d (bound 20)", xAdmitted, lAdmitted)
	if lAdmitted > 20 {
		t.Errorf("limit admitted %d, more than burst + rate x elapsed = 20", lAdmitted)
	}
	if xAdmitted <= 20 {
		t.Errorf("x/time/rate admitted %d: it no longer mints tokens from stale timestamps; update this test and the package docs", xAdmitted)
	}
}
