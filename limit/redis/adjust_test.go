package redis

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
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

// TestAdjustCluster runs the Adjust table on a Redis Cluster, where a call
// is one script run per hash tag, and adjusts keys of two tags in one call.
func TestAdjustCluster(t *testing.T) {
	srv := redistest.StartCluster(t)
	c, err := NewClient(srv.URL() + "?addr=" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	storetest.RunAdjust(t, func(t *testing.T) storetest.AdjustStore { return newStore(t, c, Options{}) })

	s := newStore(t, c, Options{})
	p := counter.Policy{Max: 10, Window: time.Minute}
	now := time.Unix(1_700_000_000, 0)
	keys := []string{"{a}adjust-cluster", "{b}adjust-cluster"}
	adj := []counter.Adjustment{{Key: keys[0], Policy: p, Delta: 4}, {Key: keys[1], Policy: p, Delta: 7}}
	if err := s.Adjust(context.Background(), now, adj); err != nil {
		t.Fatalf("Adjust over two hash tags: %v", err)
	}
	for i, want := range []float64{4, 7} {
		ds := make([]counter.Decision, 1)
		if err := s.Update(context.Background(), now, []counter.Update{{Key: keys[i], Policy: p}}, ds); err != nil {
			t.Fatal(err)
		}
		if ds[0].Used != want {
			t.Errorf("%s after Adjust: used %v, want %v", keys[i], ds[0].Used, want)
		}
	}
}

// TestAdjustServerTime checks Adjust at the Redis server's clock: what it
// adds is in the window Update then finds, and the key expires (PXAT).
func TestAdjustServerTime(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s := newStore(t, c, Options{ServerTime: true})
	p := counter.Policy{Max: 10, Window: time.Hour}
	ctx := context.Background()
	if err := s.Adjust(ctx, time.Unix(1, 0), []counter.Adjustment{{Key: "{st}k", Policy: p, Delta: 3}}); err != nil {
		t.Fatal(err)
	}
	ds := make([]counter.Decision, 1)
	if err := s.Update(ctx, time.Unix(1, 0), []counter.Update{{Key: "{st}k", Policy: p}}, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Used != 3 {
		t.Errorf("used %v after Adjust of 3 at the server's clock, want 3", ds[0].Used)
	}
	ttl, err := c.PTTL(ctx, "{st}k").Result()
	if err != nil {
		t.Fatal(err)
	}
	if ttl <= 0 || ttl > time.Hour+time.Second {
		t.Errorf("TTL %v, want at most the window", ttl)
	}
}
