package redis

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// tryAgainCounter counts the script calls a Cluster answered TRYAGAIN,
// MOVED and ASK, seen from a node's hook.
type redirectCounter struct{ tryAgain, moved, ask atomic.Int64 }

func (r *redirectCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (r *redirectCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		err := next(ctx, cmd)
		r.count(cmd.Err())
		return err
	}
}

func (r *redirectCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		err := next(ctx, cmds)
		for _, c := range cmds {
			r.count(c.Err())
		}
		return err
	}
}

func (r *redirectCounter) count(err error) {
	switch {
	case err == nil:
	case goredis.HasErrorPrefix(err, "TRYAGAIN"):
		r.tryAgain.Add(1)
	case goredis.HasErrorPrefix(err, "MOVED"):
		r.moved.Add(1)
	case goredis.HasErrorPrefix(err, "ASK"):
		r.ask.Add(1)
	}
}

// TestClusterReshardUnderLoad moves a slot from one master to another,
// one key at a time, while concurrent Updates of several of its keys each
// (one script call per request or per batch of requests) run: MOVED and
// ASK are followed and TRYAGAIN retried within each call's deadline, so
// no Update fails, and every key's count is exactly its admitted hits.
func TestClusterReshardUnderLoad(t *testing.T) {
	c := redistest.StartCluster3(t)
	s, _, _, client := clusterStore(t, c, Options{})
	var rc redirectCounter
	client.(*goredis.ClusterClient).OnNewNode(func(n *goredis.Client) { n.AddHook(&rc) })
	tag := redistest.TagOn(0, "reshard")
	const nkeys = 24
	keys := make([]string, nkeys)
	for i := range keys {
		keys[i] = fmt.Sprintf("%sk%d", tag, i)
	}
	policy := counter.Policy{Max: 1_000_000, Window: time.Hour}
	// Every key exists before the move, so that the move has keys to split.
	for _, k := range keys {
		if _, err := hit(s, k, 5*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	admitted := make([]atomic.Int64, nkeys)
	var failed atomic.Int64
	var firstErr atomic.Value
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for !stop.Load() {
				idx := r.Perm(nkeys)[:3]
				updates := make([]counter.Update, len(idx))
				for j, i := range idx {
					updates[j] = counter.Update{Key: keys[i], Policy: policy, Cost: 1}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				err := s.Update(ctx, t0, updates, make([]counter.Decision, len(updates)))
				cancel()
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				for _, i := range idx {
					admitted[i].Add(1)
				}
			}
		}()
	}
	time.Sleep(50 * time.Millisecond)
	c.MoveSlot(t, redistest.Slot(tag), c.Nodes[0], c.Nodes[1], func() { time.Sleep(5 * time.Millisecond) })
	time.Sleep(100 * time.Millisecond) // load after the move, through MOVED
	stop.Store(true)
	wg.Wait()
	if n := failed.Load(); n != 0 {
		t.Errorf("%d Updates failed during the move, the first: %v", n, firstErr.Load())
	}
	if got := c.MasterOf(t, redistest.Slot(tag)); got != c.Nodes[1] {
		t.Fatalf("the slot is on %v after the move", got)
	}
	for i, k := range keys {
		d, err := hit(s, k, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if want := uint64(1_000_000 - 2 - admitted[i].Load()); d.Remaining != want {
			t.Errorf("%s: remaining %d after %d admitted hits, want %d", k, d.Remaining, admitted[i].Load()+2, want)
		}
	}
	t.Logf("redirections seen: %d TRYAGAIN, %d ASK, %d MOVED", rc.tryAgain.Load(), rc.ask.Load(), rc.moved.Load())
	if rc.ask.Load()+rc.moved.Load() == 0 {
		t.Errorf("no ASK or MOVED seen: the move was not exercised under load")
	}
}
