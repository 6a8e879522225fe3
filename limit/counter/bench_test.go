package counter

import (
	"context"
	"hash/maphash"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Benchmarks carry the performance claims of DESIGN section 12; compare
// BenchmarkMemoryStoreKeyed with BenchmarkMapLookupClock (goal: within 2x)
// and, in internal/benchcmp, the single-key token bucket with
// golang.org/x/time/rate (goal: no slower).

const benchKeys = 100_000

func benchKeyList() []string {
	keys := make([]string, benchKeys)
	for i := range keys {
		keys[i] = "user-" + strconv.Itoa(i)
	}
	return keys
}

// goroutineOffset spreads parallel benchmark goroutines over the keys.
var goroutineOffset atomic.Uint64

// BenchmarkMapLookupClock is the baseline for a keyed decision: one clock
// read and one lookup in a map of 100,000 keys. As in a server, the map holds
// its own copies of the keys, so a lookup compares two strings in different
// memory, as the store's lookups do.
func BenchmarkMapLookupClock(b *testing.B) {
	keys := benchKeyList()
	m := make(map[string]int64, len(keys))
	for i, k := range keys {
		m[strings.Clone(k)] = int64(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := goroutineOffset.Add(7919)
		var sink int64
		for pb.Next() {
			i++
			now := time.Now()
			sink += m[keys[i%benchKeys]] + now.UnixNano()
		}
		_ = sink
	})
}

// BenchmarkShardedMapIncrement is a second reference for a keyed decision:
// the least a mutable sharded store can do (clock read, hash, shard lock,
// map read and write of a counter), without any rate-limit logic.
func BenchmarkShardedMapIncrement(b *testing.B) {
	keys := benchKeyList()
	type shard struct {
		mu sync.Mutex
		m  map[string]int64
		_  [48]byte
	}
	shards := make([]shard, 256)
	for i := range shards {
		shards[i].m = make(map[string]int64)
	}
	seed := maphash.MakeSeed()
	for _, k := range keys {
		shards[maphash.String(seed, k)&255].m[strings.Clone(k)] = 0
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := goroutineOffset.Add(7919)
		for pb.Next() {
			i++
			k := keys[i%benchKeys]
			now := time.Now().UnixNano()
			sh := &shards[maphash.String(seed, k)&255]
			sh.mu.Lock()
			sh.m[k] += now & 1
			sh.mu.Unlock()
		}
	})
}

// BenchmarkMemoryStoreKeyed is one keyed decision: a clock read and a fixed
// window update of one of 100,000 counters in the memory store.
func BenchmarkMemoryStoreKeyed(b *testing.B) {
	for _, p := range []Policy{
		{Algorithm: AlgorithmFixedWindow, Max: MaxPolicyValue, Window: time.Hour},
		{Algorithm: AlgorithmTokenBucket, Max: MaxPolicyValue, Window: time.Hour},
	} {
		b.Run(p.Algorithm.String(), func(b *testing.B) {
			keys := benchKeyList()
			m := NewMemoryStore(MemoryOptions{})
			for _, k := range keys {
				m.UpdateOne(time.Now(), Update{Key: k, Policy: p, Cost: 1})
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := goroutineOffset.Add(7919)
				for pb.Next() {
					i++
					if _, err := m.UpdateOne(time.Now(), Update{Key: keys[i%benchKeys], Policy: p, Cost: 1}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkMemoryStoreFootprint reports the heap a memory store takes per
// counter: 100,000 counters with keys like the evaluator's (about 60 bytes).
func BenchmarkMemoryStoreFootprint(b *testing.B) {
	p := Policy{Max: MaxPolicyValue, Window: time.Hour}
	key := make([]byte, 0, 64)
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		m := NewMemoryStore(MemoryOptions{})
		for i := range benchKeys {
			key = append(key[:0], "{toystore}\x00fixed_window\x003600\x00\x00user\x00user-"...)
			key = strconv.AppendInt(key, int64(i), 10)
			m.UpdateOne(t0, Update{Key: string(key), Policy: p, Cost: 1})
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/benchKeys, "B/key")
		runtime.KeepAlive(m)
	}
}

// BenchmarkLimiterTokenBucket is a single-key token bucket decision with a
// clock read, the shape of x/time/rate's Limiter.Allow.
func BenchmarkLimiterTokenBucket(b *testing.B) {
	l, err := NewLimiter(Policy{Algorithm: AlgorithmTokenBucket, Max: 1000, Window: time.Nanosecond * 1000 * 1000})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.Allow()
	}
}

// BenchmarkUpdateBatch is one batch of distinct keys, all stored, in the
// memory store: its work, done under the shards' locks, must grow
// linearly with the batch, and a batch of a few keys must not allocate.
func BenchmarkUpdateBatch(b *testing.B) {
	p := Policy{Max: MaxPolicyValue, Window: time.Hour}
	for _, n := range []int{3, 1_000, 10_000, 40_000} {
		b.Run("keys="+strconv.Itoa(n), func(b *testing.B) {
			m := NewMemoryStore(MemoryOptions{})
			updates := make([]Update, n)
			for i := range updates {
				updates[i] = Update{Key: "{toystore}\x00fixed_window\x003600\x00\x00user\x00user-" + strconv.Itoa(i), Policy: p, Cost: 1}
			}
			ds := make([]Decision, n)
			b.ReportAllocs()
			for b.Loop() {
				if err := m.Update(context.Background(), t0, updates, ds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
