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
