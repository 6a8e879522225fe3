package cached

import (
	"context"
	"testing"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestPendingHitsOwnKeys: the store keeps a counter's pending hits past
// Update, keyed by the caller's key, which may alias a buffer the caller
// reuses (as the evaluators do, with unsafe.String over pooled scratch).
// A flush after the caller overwrote its buffer writes the key it asked
// for, and the counter kept is found again under that key.
func TestPendingHitsOwnKeys(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s := newStore(t, c, Options{MaxUnflushed: 100})
	p := counter.Policy{Max: 10, Window: time.Minute}

	buf := []byte("{own}asked")
	key := unsafe.String(&buf[0], len(buf))
	if err := s.Update(context.Background(), t0, []counter.Update{{Key: key, Policy: p, Cost: 2}}, make([]counter.Decision, 1)); err != nil {
		t.Fatal(err)
	}
	copy(buf, "{own}other") // the caller reuses its buffer
	mustFlush(t, s)

	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[0] != "{own}asked" {
		t.Errorf("after the flush Redis holds keys %q, want only the one asked for, [\"{own}asked\"]", keys)
	}
	if got := stored(t, c, "{own}asked"); got != (counter.State{Time: t0.UnixMicro(), Count: 2}) {
		t.Errorf("Redis holds %+v for the key asked for, want its 2 hits in the window of t0", got)
	}
	ds := make([]counter.Decision, 1)
	if err := s.Update(context.Background(), t0, []counter.Update{{Key: "{own}asked", Policy: p}}, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Used != 2 {
		t.Errorf("a check of the key asked for: Used %v, want its 2 hits", ds[0].Used)
	}
}
