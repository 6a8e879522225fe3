package counter

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/internal/benchscale"
)

// The scale benchmarks measure the memory store as its live counters grow,
// against these goals:
//   - BenchmarkMemoryStoreScale: CPU per decision (ns/op, one goroutine,
//     keys drawn uniformly from all live counters, and by Zipf's law; see
//     scaleDraws) within 1.5x from 10,000 to 10,000,000 counters, and the
//     heap per live counter (B/counter, HeapAlloc after GC, less before)
//     under 150 bytes;
//   - BenchmarkMemoryStoreExpiry: the longest a store operation is blocked
//     by the removal of expired counters (max-hold-ns) under 1 ms with
//     10,000,000 counters expiring at once.
//
// RLPKIT_BENCH_COUNTERS sets the counts, comma-separated (default
// 10000,1000000,10000000; 10M counters take about 550 MB of heap).

// scaleKey writes counter i's key, shaped as the evaluators' keys (about
// 50 bytes), into buf and returns it as a string aliasing buf, as the
// evaluators pass their keys.
func scaleKey(buf []byte, i int) (string, []byte) {
	buf = append(buf[:0], "{toystore}\x00fixed_window\x003600\x00\x00user\x00user-"...)
	buf = strconv.AppendInt(buf, int64(i), 10)
	return unsafe.String(unsafe.SliceData(buf), len(buf)), buf
}

// fillScale returns a store holding n counters of policy p written at now,
// and the heap it takes per counter.
func fillScale(n int, p Policy, now time.Time) (*MemoryStore, float64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m := NewMemoryStore(MemoryOptions{MaxKeys: 2*n + 64*memShards}) // room: no eviction
	buf := make([]byte, 0, 64)
	var key string
	for i := range n {
		key, buf = scaleKey(buf, i)
		m.UpdateOne(now, Update{Key: key, Policy: p, Cost: 1})
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return m, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
}

// scaleDraws are the ways BenchmarkMemoryStoreScale and BenchmarkMapScale
// draw the counter each decision goes to: uniformly among all live
// counters, where every decision past the CPU caches waits for memory, and
// by Zipf's law (s = 1.1: a few counters take most decisions, as a few
// clients and routes take most of a rate limiter's traffic), where the hot
// counters stay cached and what the store's size itself costs shows; and
// uniformly among 10,000 of them spread over the store (every n/10,000th
// written), which asks whether decisions on an active set slow down as
// idle counters pile up around it.
var scaleDraws = []struct {
	name string
	draw func(n int) func() int
}{
	{"uniform", func(n int) func() int {
		rng := uint64(0x9e3779b97f4a7c15)
		return func() int {
			rng ^= rng << 13
			rng ^= rng >> 7
			rng ^= rng << 17
			return int(rng % uint64(n))
		}
	}},
	{"zipf", func(n int) func() int {
		// 1M draws made in advance and cycled: drawing costs more than a
		// decision, and a sequential read of the table costs next to nothing.
		z := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 1, uint64(n-1))
		draws := make([]int32, 1<<20)
		for i := range draws {
			draws[i] = int32(z.Uint64())
		}
		i := 0
		return func() int {
			i = (i + 1) & (len(draws) - 1)
			return int(draws[i])
		}
	}},
	{"active10k", func(n int) func() int {
		rng, step := uint64(0x9e3779b97f4a7c15), max(1, n/10_000)
		return func() int {
			rng ^= rng << 13
			rng ^= rng >> 7
			rng ^= rng << 17
			return int(rng%uint64(min(n, 10_000))) * step
		}
	}},
}

// BenchmarkMemoryStoreScale is one fixed window decision on a counter drawn
// (see scaleDraws) among n live ones.
func BenchmarkMemoryStoreScale(b *testing.B) {
	p := Policy{Max: MaxPolicyValue, Window: time.Hour}
	for _, d := range scaleDraws {
		for _, n := range benchscale.Counts(b) {
			b.Run("draw="+d.name+"/counters="+benchscale.Name(n), func(b *testing.B) {
				m, perCounter := fillScale(n, p, t0)
				if got := m.Len(); got != n {
					b.Fatalf("Len = %d, want %d", got, n)
				}
				buf := make([]byte, 0, 64)
				var key string
				next := d.draw(n)
				now := t0.Add(time.Second)
				b.ReportAllocs()
				for b.Loop() {
					key, buf = scaleKey(buf, next())
					if _, err := m.UpdateOne(now, Update{Key: key, Policy: p, Cost: 1}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(perCounter, "B/counter")
				runtime.KeepAlive(m)
			})
		}
	}
}

// BenchmarkMapScale is the reference for BenchmarkMemoryStoreScale: a
// lookup and an increment in a Go map of n counters with the same keys,
// drawn the same way, with no lock and no rate-limit logic. Its growth
// from 10,000 to 10,000,000 counters is what the machine's caches and TLB
// charge any table that size.
func BenchmarkMapScale(b *testing.B) {
	for _, d := range scaleDraws {
		for _, n := range benchscale.Counts(b) {
			b.Run("draw="+d.name+"/counters="+benchscale.Name(n), func(b *testing.B) {
				m := make(map[string]uint64)
				buf := make([]byte, 0, 64)
				var key string
				for i := range n {
					key, buf = scaleKey(buf, i)
					m[strings.Clone(key)] = 1
				}
				next := d.draw(n)
				for b.Loop() {
					key, buf = scaleKey(buf, next())
					m[key]++
				}
			})
		}
	}
}

// BenchmarkMemoryStoreExpiry writes new counters into a store whose n
// counters have all expired: the writes remove the expired counters as
// they go. It reports the longest single write (max-hold-ns: the CPU time
// of the thread, which is how long the write held its shard's lock, since
// nothing else contends for it and the time the thread was descheduled is
// left out; the collector is off meanwhile) and the share of the expired counters still stored when
// the benchmark ended (expired-left, from a sample of 10,000).
func BenchmarkMemoryStoreExpiry(b *testing.B) {
	p := Policy{Max: MaxPolicyValue, Window: time.Second}
	for _, n := range benchscale.Counts(b) {
		b.Run("counters="+benchscale.Name(n), func(b *testing.B) {
			m, _ := fillScale(n, p, t0)
			buf := make([]byte, 0, 64)
			var key string
			now := t0.Add(3 * time.Second)
			var longest time.Duration
			i := n
			defer debug.SetGCPercent(debug.SetGCPercent(-1))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for b.Loop() {
				key, buf = scaleKey(buf, i)
				i++
				start := threadCPU()
				m.UpdateOne(now, Update{Key: key, Policy: p, Cost: 1})
				if d := threadCPU() - start; d > longest {
					longest = d
				}
			}
			b.ReportMetric(float64(longest.Nanoseconds()), "max-hold-ns")
			left, sample := 0, min(n, 10_000)
			for j := range sample {
				key, buf = scaleKey(buf, j*(n/sample))
				id, si := m.id(key)
				if m.shards[si].find(id) != nil {
					left++
				}
			}
			b.ReportMetric(float64(left)/float64(sample), "expired-left")
		})
	}
}
