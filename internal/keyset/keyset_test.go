package keyset

import (
	"iter"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// counter is a value of the tests: a count, and whether it was evicted.
type counter struct {
	n       atomic.Uint64
	evicted bool
}

// newSet returns a set of max bounded keys recording its evictions.
func newSet(max int) (*Set[string, *counter], *[]string) {
	var evicted []string
	s := New(max, func(k string, c *counter) {
		c.evicted = true
		evicted = append(evicted, k)
	})
	return s, &evicted
}

// add acquires key, counts one and releases it, reporting whether the set
// had room.
func add(s *Set[string, *counter], key string) bool {
	r, ok := s.Acquire(key, func() *counter { return new(counter) })
	if ok {
		r.Value().n.Add(1)
		r.Release()
	}
	return ok
}

func TestBound(t *testing.T) {
	s, evicted := newSet(3)
	var refused []string
	for i := range 10 {
		if k := "k" + strconv.Itoa(i); !add(s, k) {
			refused = append(refused, k)
		}
	}
	if !add(s, "k1") {
		t.Error("a key in the set was refused")
	}
	if diff := cmp.Diff([]string{"k3", "k4", "k5", "k6", "k7", "k8", "k9"}, refused); diff != "" {
		t.Errorf("refused (-want +got):\n%s", diff)
	}
	if n := s.Len(); n != 3 || len(*evicted) != 0 {
		t.Errorf("Len() = %d, %d evicted; want 3, 0", n, len(*evicted))
	}
}

func TestZeroMax(t *testing.T) {
	s, _ := newSet(0)
	if add(s, "a") {
		t.Error("a set of no keys took one")
	}
	s.Tick()
	s.Tick()
	if add(s, "a") {
		t.Error("a set of no keys took one after two periods")
	}
}

func TestIdleKeysGiveTheirSlotsLeastRecentlyUsedFirst(t *testing.T) {
	s, evicted := newSet(3)
	for _, k := range []string{"a", "b", "c"} { // period 0: full
		add(s, k)
	}
	s.Tick()
	if add(s, "x") {
		t.Fatal("x took the slot of a key used in the period before")
	}
	add(s, "b") // period 1
	s.Tick()
	add(s, "c") // period 2
	s.Tick()    // period 3: a (unused for 3 periods) and b (2) give their slots; c does not
	for _, k := range []string{"d", "e"} {
		if !add(s, k) {
			t.Fatalf("%s refused with idle keys in the set", k)
		}
	}
	if add(s, "f") {
		t.Error("f took the slot of c, used in the period before")
	}
	if diff := cmp.Diff([]string{"a", "b"}, *evicted); diff != "" {
		t.Errorf("evicted (-want +got):\n%s", diff)
	}
	// An evicted key comes back with a new value.
	s.Tick()
	s.Tick()
	r, ok := s.Acquire("a", func() *counter { return new(counter) })
	if !ok || r.Value().n.Load() != 0 || r.Value().evicted {
		t.Errorf("a after its eviction = %v, %v; want a new value", ok, r.e)
	}
	r.Release()
}

func TestKeyUsedAfterTheTickStays(t *testing.T) {
	s, evicted := newSet(1)
	add(s, "a")
	s.Tick()
	s.Tick() // a is a candidate
	add(s, "a")
	if add(s, "b") || len(*evicted) != 0 {
		t.Errorf("b took the slot of a, used in this period; evicted %v", *evicted)
	}
}

func TestHeldKeyIsNotEvicted(t *testing.T) {
	s, evicted := newSet(1)
	r, _ := s.Acquire("a", func() *counter { return new(counter) })
	s.Tick()
	s.Tick()
	if add(s, "b") || len(*evicted) != 0 {
		t.Errorf("b took the slot of a held key; evicted %v", *evicted)
	}
	r.Value().n.Add(1)
	r.Release()
	s.Tick()
	s.Tick()
	if !add(s, "b") || len(*evicted) != 1 {
		t.Errorf("b refused once a was released and idle; evicted %v", *evicted)
	}
}

func TestView(t *testing.T) {
	s, _ := newSet(2)
	add(s, "b1")
	add(s, "b2")
	add(s, "b1")
	var got []string
	s.View(func(all iter.Seq2[string, *counter]) {
		for k, c := range all {
			got = append(got, k+"="+strconv.FormatUint(c.n.Load(), 10))
			if k == "b1" {
				break
			}
		}
	})
	if diff := cmp.Diff([]string{"b1=2"}, got); diff != "" {
		t.Errorf("View (-want +got):\n%s", diff)
	}
}

// TestConcurrentNothingLost: goroutines count on more keys than the set
// holds while it ticks; every count is in a value in the set, in an
// evicted value, or was refused.
func TestConcurrentNothingLost(t *testing.T) {
	var folded atomic.Uint64
	s := New(16, func(_ int, c *counter) { folded.Add(c.n.Load()) })
	var refused atomic.Uint64
	const workers, each = 4, 5000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				k := (i*7 + w*13) % 64
				r, ok := s.Acquire(k, func() *counter { return new(counter) })
				if !ok {
					refused.Add(1)
					continue
				}
				r.Value().n.Add(1)
				r.Release()
			}
		})
	}
	wg.Go(func() {
		for range 200 {
			s.Tick()
		}
	})
	wg.Wait()
	var live uint64
	s.View(func(all iter.Seq2[int, *counter]) {
		for _, c := range all {
			live += c.n.Load()
		}
	})
	if got := live + folded.Load() + refused.Load(); got != workers*each {
		t.Errorf("live %d + evicted %d + refused %d = %d, want %d", live, folded.Load(), refused.Load(), got, workers*each)
	}
	t.Logf("live %d folded %d refused %d", live, folded.Load(), refused.Load())
	if n := s.Len(); n > 16 {
		t.Errorf("%d keys, want at most 16", n)
	}
}
