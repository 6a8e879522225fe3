package redis

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter/storetest"
)

// TestAdjustConformance runs counter's shared Adjust table against a real
// Redis, with and without a key prefix and the server's clock.
func TestAdjustConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	for _, tc := range []struct {
		name string
		o    Options
	}{
		{"defaults", Options{}},
		{"key prefix", Options{KeyPrefix: "rlpkit:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.RunAdjust(t, func(t *testing.T) storetest.AdjustStore { return newStore(t, c, tc.o) })
		})
	}
}
