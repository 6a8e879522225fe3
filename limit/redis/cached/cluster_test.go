package cached

import (
	"context"
	"fmt"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// TestClusterFlush: on a Cluster, a flush of counters of several hash tags
// is one script call per hash tag, sent in one pipeline, and every counter
// gets its hits.
func TestClusterFlush(t *testing.T) {
	srv := redistest.StartCluster(t)
	c, err := redis.NewClient(srv.URL() + "?addr=" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, ok := c.(*goredis.ClusterClient); !ok {
		t.Fatalf("NewClient with addr= returned a %T, want a *redis.ClusterClient", c)
	}
	s := newStore(t, c, Options{MaxUnflushed: 100})
	p := counter.Policy{Max: 100, Window: time.Minute}
	hit(t, s, t0, "{warm}up", p, 1) // load the cluster's slots and the script
	mustFlush(t, s)
	var cmds commands
	c.AddHook(&cmds)
	for tag := range 3 {
		for k := range 2 {
			for range tag + 1 {
				hit(t, s, t0, fmt.Sprintf("{ns%d}k%d", tag, k), p, 1)
			}
		}
	}
	mustFlush(t, s)
	if names, trips := cmds.take(); trips != 1 || names["evalsha"] != 3 {
		t.Errorf("Flush of 3 hash tags: %d round trips %v, want one pipeline of 3 EVALSHA", trips, names)
	}
	for tag := range 3 {
		for k := range 2 {
			key := fmt.Sprintf("{ns%d}k%d", tag, k)
			if got := stored(t, c, key); got.Count != uint64(tag+1) {
				t.Errorf("Redis holds %+v for %s, want %d hits", got, key, tag+1)
			}
		}
	}
}

// TestClusterFlushPartFails flushes counters of three hash tags on a
// Cluster where the slot of one tag is not served (CLUSTER DELSLOTS): the
// flush fails and the store is down, but only that tag's hits stay
// pending; the other two are written once, and the next flush, once the
// slot is served again, writes the pending ones without writing the
// others a second time.
func TestClusterFlushPartFails(t *testing.T) {
	srv := redistest.StartCluster(t)
	// No retries: go-redis re-sends a node's whole pipeline when its first
	// command fails with CLUSTERDOWN, the calls that succeeded included,
	// which would count them twice whatever the store does.
	c, err := redis.NewClient(srv.URL() + "?addr=" + srv.Addr + "&max_redirects=-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := t.Context()
	s := newStore(t, c, Options{MaxUnflushed: 100})
	p := counter.Policy{Max: 100, Window: time.Minute}
	hit(t, s, t0, "{warm}up", p, 1) // load the cluster's slots and the script
	mustFlush(t, s)
	for tag := range 3 {
		for range tag + 1 {
			hit(t, s, t0, fmt.Sprintf("{ns%d}k", tag), p, 1)
		}
	}
	slot, err := c.ClusterKeySlot(ctx, "{ns1}k").Result()
	if err != nil {
		t.Fatal(err)
	}
	node := c.(*goredis.ClusterClient)
	admin := func(args ...any) {
		t.Helper()
		if err := node.ForEachMaster(ctx, func(ctx context.Context, m *goredis.Client) error {
			return m.Do(ctx, args...).Err()
		}); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	// The other slots stay served while one is not.
	admin("CONFIG", "SET", "cluster-require-full-coverage", "no")
	admin("CLUSTER", "DELSLOTS", slot)
	if err := s.Flush(ctx); err == nil {
		t.Fatal("Flush with a slot not served = nil, want an error")
	}
	if st := s.Stats(); !st.Down || st.Pending != 2 {
		t.Errorf("after the failed flush: %+v, want down with the 2 hits of {ns1}k pending", st)
	}
	admin("CLUSTER", "ADDSLOTS", slot)
	// The flush that ends the outage writes the hits of {ns1}k alone.
	var err2 error
	for range 100 {
		if err2 = s.Flush(ctx); err2 == nil {
			break
		}
		time.Sleep(10 * time.Millisecond) // until the node serves the slot again
	}
	if err2 != nil {
		t.Fatalf("Flush once the slot is served again: %v", err2)
	}
	for tag := range 3 {
		key := fmt.Sprintf("{ns%d}k", tag)
		if got := stored(t, c, key); got.Count != uint64(tag+1) {
			t.Errorf("Redis holds %+v for %s, want %d hits (written once)", got, key, tag+1)
		}
	}
}
