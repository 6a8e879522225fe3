package cached

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestFlushBadKeyConfined flushes the hits of healthy counters with those
// of a key that holds a list or another string: the flush writes the
// healthy counters and the store stays up; the bad key's hits are dropped
// (they cannot be written) and the Updates that touch it afterwards fail
// with an error naming it, while Updates of the other keys are decided
// locally as before.
func TestFlushBadKeyConfined(t *testing.T) {
	for _, tc := range []struct {
		name     string
		setup    []any
		wantErr  string
		wantType string
	}{
		{"list", []any{"RPUSH", "{b}bad", "x"}, "WRONGTYPE", "list"},
		{"another string", []any{"SET", "{b}bad", "not a state"}, "does not hold a counter state", "string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := redistest.Start(t)
			c := newClient(t, srv)
			ctx := context.Background()
			if err := c.Do(ctx, tc.setup...).Err(); err != nil {
				t.Fatal(err)
			}
			s := newStore(t, c, Options{MaxUnflushed: 100})
			p := counter.Policy{Max: 1000, Window: time.Minute}
			for k := range 3 {
				for range k + 1 {
					hit(t, s, t0, fmt.Sprintf("{b}ok%d", k), p, 1)
				}
			}
			hit(t, s, t0, "{b}bad", p, 1) // decided locally: Redis is not read
			if err := s.Flush(ctx); err != nil {
				t.Fatalf("Flush with one bad key = %v, want the others written", err)
			}
			for k := range 3 {
				if got := stored(t, c, fmt.Sprintf("{b}ok%d", k)); got.Count != uint64(k+1) {
					t.Errorf("Redis holds %+v for {b}ok%d, want %d hits", got, k, k+1)
				}
			}
			st := s.Stats()
			if st.Down || st.Pending != 0 || st.FlushErrors != 0 {
				t.Errorf("after the flush: %+v, want up, nothing pending, no flush error", st)
			}
			ds := make([]counter.Decision, 2)
			err := s.Update(ctx, t0, []counter.Update{{Key: "{b}ok0", Policy: p, Cost: 1}, {Key: "{b}bad", Policy: p, Cost: 1}}, ds)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "{b}bad") {
				t.Errorf("Update touching {b}bad = %v, want an error containing %q naming the key", err, tc.wantErr)
			}
			if !hit(t, s, t0, "{b}ok0", p, 1) {
				t.Errorf("an Update of {b}ok0 alone was rejected")
			}
			mustFlush(t, s)
			if got := stored(t, c, "{b}ok0"); got.Count != 2 {
				t.Errorf("Redis holds %+v for {b}ok0, want 2 hits (the failed Update counted nothing)", got)
			}
			if typ := c.Type(ctx, "{b}bad").Val(); typ != tc.wantType {
				t.Errorf("TYPE {b}bad = %s: the store wrote it", typ)
			}
			// Once the key is a counter again, it is counted again.
			c.Del(ctx, "{b}bad")
			if !hit(t, s, t0, "{b}bad", p, 1) || !hit(t, s, t0, "{b}bad", p, 1) {
				t.Errorf("an Update of {b}bad after DEL was rejected")
			}
			mustFlush(t, s)
			if got := stored(t, c, "{b}bad"); got.Count != 2 {
				t.Errorf("Redis holds %+v for {b}bad after DEL and 2 hits, want 2 hits", got)
			}
		})
	}
}
