package counter

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestInFlight(t *testing.T) {
	f := NewInFlight(2)
	r1, d1 := f.Acquire("a", 1)
	r2, d2 := f.Acquire("a", 0) // 0 counts as 1
	r3, d3 := f.Acquire("a", 1)
	_, db := f.Acquire("b", 3)
	for _, c := range []struct {
		name      string
		got, want Decision
	}{
		{"first", d1, Decision{Allowed: true, Used: 1, Remaining: 1}},
		{"second", d2, Decision{Allowed: true, Used: 2, Remaining: 0}},
		{"third, over", d3, Decision{Used: 3, Remaining: 0}},
		{"cost above max", db, Decision{Used: 3, Remaining: 2}},
	} {
		if diff := cmp.Diff(c.want, c.got); diff != "" {
			t.Errorf("Acquire %s mismatch (-want +got):\n%s", c.name, diff)
		}
	}
	r3() // a rejected acquire holds nothing: releasing it changes nothing
	if got := f.InUse("a"); got != 2 {
		t.Errorf("InUse(a) after a rejected release = %d, want 2", got)
	}
	r1()
	r1() // a second release has no effect
	if got := f.InUse("a"); got != 1 {
		t.Errorf("InUse(a) after double release = %d, want 1", got)
	}
	r2()
	if got := f.InUse("a"); got != 0 {
		t.Errorf("InUse(a) after all releases = %d, want 0", got)
	}
	if n := countAll(f); n != 0 {
		t.Errorf("%d keys kept with nothing held, want 0", n)
	}
}

func countAll(f *InFlight) int {
	n := 0
	for i := range f.shards {
		n += len(f.shards[i].counts)
	}
	return n
}

func TestInFlightConcurrent(t *testing.T) {
	const max = 5
	f := NewInFlight(max)
	var held, peak atomic.Int64
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2000 {
				release, d := f.Acquire("k", 1)
				if d.Allowed {
					admitted.Add(1)
					n := held.Add(1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					held.Add(-1)
				}
				release()
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p > max {
		t.Errorf("peak concurrent holders = %d, want <= %d", p, max)
	}
	if admitted.Load() == 0 {
		t.Error("nothing admitted")
	}
	if got := f.InUse("k"); got != 0 {
		t.Errorf("InUse after all released = %d, want 0", got)
	}
}

func TestLimiter(t *testing.T) {
	now := t0
	l, err := NewLimiterWithClock(Policy{Algorithm: AlgorithmTokenBucket, Max: 2, Window: s1}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	got := []bool{l.Allow(), l.Allow(), l.Allow()}
	now = now.Add(500 * ms)
	got = append(got, l.Allow(), l.Allow())
	if diff := cmp.Diff([]bool{true, true, false, true, false}, got); diff != "" {
		t.Errorf("Allow sequence mismatch (-want +got):\n%s", diff)
	}
	if _, err := NewLimiter(Policy{Window: 0}); err == nil {
		t.Error("NewLimiter(window 0) = nil error, want an error")
	}
}
