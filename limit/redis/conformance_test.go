package redis

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/counter/storetest"
)

// TestConformance runs counter's shared store table against a real Redis, as
// counter's own tests run it against the memory store.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	b, err := NewBreaker(c, BreakerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	tests := []struct {
		name string
		o    Options
	}{
		{"defaults", Options{}},
		{"key prefix", Options{KeyPrefix: "rlpkit:"}},
		{"breaker", Options{Breaker: b}}, // up all along: the same answers
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Run(t, func(t *testing.T) counter.Store { return newStore(t, c, tc.o) })
		})
	}
}
