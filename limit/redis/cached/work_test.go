package cached

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestDecideWorkLinear counts the key comparisons and map look-ups of
// local decisions on batches of n and 2n fixed windows, of distinct keys
// and of each key twice: at most one per update, so that the work under
// the store's mutex is linear in the batch size.
func TestDecideWorkLinear(t *testing.T) {
	srv := redistest.Start(t)
	p := counter.Policy{Max: 1 << 30, Window: time.Hour}
	for _, times := range []int{1, 2} {
		t.Run("times="+strconv.Itoa(times), func(t *testing.T) {
			last := 0
			for _, n := range []int{1_000, 2_000, 4_000} {
				s := newStore(t, newClient(t, srv), Options{MaxUnflushed: 1 << 30, MaxCounters: 10 * n})
				probes := -1
				s.onDecide = func(p int) { probes = p }
				var us []counter.Update
				for r := range times {
					for i := range n {
						us = append(us, counter.Update{Key: "{work}" + strconv.Itoa(i), Policy: p, Cost: uint64(1 - r%2)})
					}
				}
				ds := make([]counter.Decision, len(us))
				if err := s.Update(context.Background(), t0, us, ds); err != nil {
					t.Fatal(err)
				}
				if probes < 0 {
					t.Fatal("the batch was not decided locally")
				}
				if probes > len(us) {
					t.Errorf("a batch of %d updates took %d key probes, want at most %d", len(us), probes, len(us))
				}
				if last > 0 && probes > 2*last {
					t.Errorf("a batch of %d updates took %d key probes, more than twice the %d of half as many", len(us), probes, last)
				}
				last = probes
				for i := range ds {
					if !ds[i].Allowed || ds[i].Used != 1 {
						t.Fatalf("update %d: %+v, want allowed with 1 used", i, ds[i])
					}
				}
			}
		})
	}
}

// TestBatchOverItsOwnAllowance: a batch that alone puts more hits on a
// counter than its allowance (the key repeated, each update within it) is
// decided once the counter holds no hit from before, as a single update
// over the allowance is: a flush cannot acknowledge the batch's own hits,
// so waiting for one would wait forever.
func TestBatchOverItsOwnAllowance(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{MaxUnflushed: 1})
	p := counter.Policy{Max: 10, Window: time.Minute}
	k := "{own}k"
	batch := []counter.Update{{Key: k, Policy: p, Cost: 1}, {Key: k, Policy: p, Cost: 1}, {Key: k, Policy: p, Cost: 1}}
	for round := range 2 { // a counter with no hit yet, then one holding some
		ds := make([]counter.Decision, len(batch))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second) // bounds the old livelock
		err := s.Update(ctx, t0, batch, ds)
		cancel()
		if err != nil {
			t.Fatalf("round %d: Update of a key three times with an allowance of 1: %v", round, err)
		}
		for i := range ds {
			if used := float64(3*round + i + 1); !ds[i].Allowed || ds[i].Used != used {
				t.Errorf("round %d: decision %d = %+v, want allowed with %v used", round, i, ds[i], used)
			}
		}
	}
	if st := s.Stats(); st.Flushes != 1 {
		t.Errorf("%d flushes, want 1 (the second batch waits for the first's hits)", st.Flushes)
	}
}
