package redis

import (
	"context"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/counter/storetest"
)

// newClusterStore starts a one-node Redis Cluster and returns a Store on a
// Cluster client for it.
func newClusterStore(t *testing.T) (*Store, goredis.UniversalClient, *redistest.Server) {
	t.Helper()
	srv := redistest.StartCluster(t)
	c, err := NewClient(srv.URL() + "?addr=" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, ok := c.(*goredis.ClusterClient); !ok {
		t.Fatalf("NewClient with addr= returned a %T, want a *redis.ClusterClient", c)
	}
	return newStore(t, c, Options{}), c, srv
}

// tagged gives every key one hash tag, so that storetest's keys (which have
// none) fit in one Cluster slot.
type tagged struct{ s *Store }

func (tg tagged) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	u := make([]counter.Update, len(updates))
	for i := range updates {
		u[i] = updates[i]
		u[i].Key = "{storetest}" + updates[i].Key
	}
	return tg.s.Update(ctx, now, u, decisions)
}

func TestCluster(t *testing.T) {
	s, c, srv := newClusterStore(t)
	ctx := context.Background()

	t.Run("conformance", func(t *testing.T) {
		storetest.Run(t, func(*testing.T) counter.Store { return tagged{s} })
	})

	t.Run("one round trip", func(t *testing.T) {
		var hook commandCounter
		c.AddHook(&hook)
		updates := batchOf("cluster-rt", 5)
		ds := make([]counter.Decision, len(updates))
		if err := s.Update(ctx, t0, updates, ds); err != nil {
			t.Fatal(err)
		}
		hook.take()
		for range 3 {
			if err := s.Update(ctx, t0, updates, ds); err != nil {
				t.Fatal(err)
			}
		}
		if got := hook.take(); got["evalsha"] != 3 || len(got) != 1 {
			t.Errorf("commands of 3 Updates = %v, want only 3 evalsha", got)
		}
	})

	t.Run("several hash tags are refused", func(t *testing.T) {
		p := counter.Policy{Max: 5, Window: time.Minute}
		updates := []counter.Update{
			{Key: "{a}k", Policy: p, Cost: 1},
			{Key: "{a}other", Policy: p, Cost: 1},
			{Key: "{b}k", Policy: p, Cost: 1},
		}
		ds := make([]counter.Decision, len(updates))
		err := s.Update(ctx, t0, updates, ds)
		if err == nil || !strings.Contains(err.Error(), `"{a}k" and "{b}k"`) {
			t.Fatalf("Update across hash tags = %v, want an error naming {a}k and {b}k", err)
		}
		if n := c.Exists(ctx, "{a}k", "{a}other", "{b}k").Val(); n != 0 {
			t.Errorf("a refused Update created %d keys", n)
		}
		// Without the odd one out it goes through.
		if err := s.Update(ctx, t0, updates[:2], ds); err != nil {
			t.Fatalf("Update within one hash tag: %v", err)
		}
	})

	t.Run("Redis refuses what the check lets through", func(t *testing.T) {
		// A standalone client is not checked; the cluster node itself
		// refuses keys of several slots, and the error reaches the caller.
		plain := newStore(t, newClient(t, srv), Options{})
		p := counter.Policy{Max: 5, Window: time.Minute}
		updates := []counter.Update{{Key: "{c}k", Policy: p, Cost: 1}, {Key: "{d}k", Policy: p, Cost: 1}}
		err := plain.Update(ctx, t0, updates, make([]counter.Decision, 2))
		if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
			t.Fatalf("Update across slots on a standalone client = %v, want Redis's CROSSSLOT error", err)
		}
	})
}
