package cached

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/counter/storetest"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestConformance runs counter's shared store table against one instance
// on a real Redis. Every subtest applies: one instance alone sees every hit
// of its counters (its view is Redis's count plus its own unacknowledged
// hits), so its fixed windows are decided exactly, and the other
// algorithms go to the exact store. The allowances are small (max(1,
// Max/10)), so the fixed-window subtests also flush on the way. The
// options keep MaxCounters above the counters a subtest uses: a counter
// dropped to make room and met again starts from an empty view, as a second
// instance would (see the package doc), and then "exact under concurrency"
// does not hold.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	tests := []struct {
		name string
		o    Options
	}{
		{"defaults", Options{}},
		{"key prefix, large allowance", Options{Redis: redis.Options{KeyPrefix: "rlpkit:"}, MaxUnflushed: 1000}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) counter.Store { return newStore(t, c, tc.o) })
		})
	}
}
