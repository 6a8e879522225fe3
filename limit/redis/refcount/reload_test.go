package refcount

import (
	"slices"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestLocalCacheChangedLimit: a counter the local cache remembers over
// under one limit is still answered over from the cache under a lower
// limit (a reload lowering it), but under a higher one it is counted in
// Redis again at once rather than rejected until its window ends.
func TestLocalCacheChangedLimit(t *testing.T) {
	c, rec := newClient(t)
	s := newStore(t, c, Options{LocalCacheBytes: 1 << 20})
	low := counter.Update{Key: "a", Policy: fixed(1, time.Minute), Cost: 1}
	update(t, s, t0, low)
	if ds := update(t, s, t0, low); ds[0].Allowed {
		t.Fatalf("second hit under limit 1: %+v, want over", ds[0])
	}
	rec.take()
	lower := low
	lower.Policy.Max = 0
	if ds := update(t, s, t0.Add(time.Second), lower); ds[0].Allowed {
		t.Fatalf("under limit 0: %+v, want over", ds[0])
	}
	if cmds, _ := rec.take(); len(cmds) != 0 {
		t.Errorf("under a lower limit: commands %q, want none (answered from the cache)", cmds)
	}
	raised := low
	raised.Policy.Max = 5
	ds := update(t, s, t0.Add(2*time.Second), raised)
	if !ds[0].Allowed || ds[0].Used != 3 {
		t.Errorf("under limit 5 after the reload: %+v, want allowed with 3 hits counted", ds[0])
	}
	if cmds, _ := rec.take(); !slices.Contains(cmds, "incrby a 1") {
		t.Errorf("under a raised limit: commands %q, want a counted in Redis", cmds)
	}
}
