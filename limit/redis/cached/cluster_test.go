package cached

import (
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
