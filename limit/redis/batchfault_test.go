package redis

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// batchFaultPolicies are a fixed window (fixed.lua) and a token bucket
// (update.lua): both scripts must confine a bad key to its requests.
var batchFaultPolicies = []counter.Policy{
	{Max: 1_000_000, Window: time.Hour},
	{Algorithm: counter.AlgorithmTokenBucket, Max: 1_000_000, Window: time.Hour},
}

// TestBatchWrongTypeConfined queues Updates behind a pipeline in flight, so
// that one script call decides them all, one of them on a key holding a
// list: that one fails with Redis's WRONGTYPE, naming the key, and the
// others of its script call are decided and counted.
func TestBatchWrongTypeConfined(t *testing.T) {
	for _, p := range batchFaultPolicies {
		t.Run(p.Algorithm.String(), func(t *testing.T) {
			srv := redistest.Start(t)
			c := newPatientClient(t, srv)
			mustDo(t, c, "RPUSH", "{q}list", "x")
			s := newStore(t, c, Options{Pipelines: 1})
			errs, ds := queueBehindFrozen(t, srv, s, 3, func(i int) []counter.Update {
				u := []counter.Update{{Key: "{q}shared", Policy: p, Cost: 1}}
				if i == 1 {
					u = append(u, counter.Update{Key: "{q}list", Policy: p, Cost: 1})
				}
				return u
			})
			if errs[1] == nil || !strings.Contains(errs[1].Error(), "WRONGTYPE") || !strings.Contains(errs[1].Error(), `"{q}list"`) {
				t.Errorf("Update on {q}list = %v, want WRONGTYPE naming the key", errs[1])
			}
			for _, i := range []int{0, 2} {
				if errs[i] != nil || !ds[i][0].Allowed {
					t.Errorf("Update %d = %v, %+v: want it admitted", i, errs[i], ds[i])
				}
			}
			if got := ds[2][0].Used; got != 2 {
				t.Errorf("the third Update left {q}shared at %v, want 2 (the failed one adds nothing)", got)
			}
			if got := mustDo(t, c, "TYPE", "{q}list"); got != "list" {
				t.Errorf("TYPE {q}list = %v after the batch, want list (never written)", got)
			}
		})
	}
}

// TestConcurrentWrongTypeConfined has 32 goroutines share the store's
// pipelines and script calls, one of them updating a key that holds a
// list: every one of its updates fails with WRONGTYPE, and none of the
// 3,100 updates of the healthy keys does.
func TestConcurrentWrongTypeConfined(t *testing.T) {
	const goroutines, perG = 32, 100
	srv := redistest.Start(t)
	c := newClient(t, srv)
	mustDo(t, c, "RPUSH", "{c}list", "x")
	s := newStore(t, c, Options{})
	for _, p := range batchFaultPolicies {
		t.Run(p.Algorithm.String(), func(t *testing.T) {
			var healthyFailed, badFailed atomic.Int64
			var firstHealthy atomic.Value
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					key := fmt.Sprintf("{c}%s/%d", p.Algorithm, g)
					if g == 0 {
						key = "{c}list"
					}
					u := []counter.Update{{Key: key, Policy: p, Cost: 1}}
					ds := make([]counter.Decision, 1)
					for range perG {
						err := s.Update(context.Background(), t0, u, ds)
						switch {
						case g == 0 && err != nil && strings.Contains(err.Error(), "WRONGTYPE"):
							badFailed.Add(1)
						case g == 0:
							t.Errorf("Update of {c}list = %v, want WRONGTYPE", err)
						case err != nil:
							healthyFailed.Add(1)
							firstHealthy.CompareAndSwap(nil, err.Error())
						case !ds[0].Allowed:
							t.Errorf("Update of %s = %+v, want admitted", key, ds[0])
						}
					}
				})
			}
			wg.Wait()
			if n := healthyFailed.Load(); n != 0 {
				t.Errorf("%d of %d updates of healthy keys failed (first: %v), want 0", n, (goroutines-1)*perG, firstHealthy.Load())
			}
			if n := badFailed.Load(); n != perG {
				t.Errorf("%d of %d updates of the list key failed with WRONGTYPE, want all", n, perG)
			}
		})
	}
}

// TestBatchUnknownAlgorithmConfined sends, in one script call of
// update.lua, a request whose update names an algorithm the script does not
// know between two valid ones: it alone fails, and the others are counted.
func TestBatchUnknownAlgorithmConfined(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s := newStore(t, c, Options{})
	p := counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 5, Window: time.Hour}
	updates := []counter.Update{{Key: "{u}k", Policy: p, Cost: 1}}
	batches := make([]*batch, 3)
	calls := make([]*call, 3)
	for i := range batches {
		batches[i] = s.prepare(context.Background(), t0.UnixMicro(), updates)
		calls[i] = &batches[i].call
	}
	// The second request's first update: its algorithm follows now,
	// servertime, margin, n and its key index (five doubles).
	bad := batches[1]
	bad.args = append([]byte(nil), bad.args...)
	copy(bad.args[5*8:], script.AppendNum(nil, 9))
	bad.argv[1] = string(bad.args)
	calls[1].args = bad.argv[:]
	s.pipe.exec(calls, &sender{pipe: c.Pipeline()})
	for i, cl := range calls {
		<-cl.done
		if cl.err != nil {
			t.Fatalf("request %d: the script call failed: %v", i, cl.err)
		}
	}
	ds := make([]counter.Decision, 1)
	if err := batches[1].finish(false, t0, calls[1].result, updates, ds); err == nil || !strings.Contains(err.Error(), "does not know the algorithm") {
		t.Errorf("request of an unknown algorithm: %v, want an error saying so", err)
	}
	for _, i := range []int{0, 2} {
		if err := batches[i].finish(false, t0, calls[i].result, updates, ds); err != nil || !ds[0].Allowed {
			t.Errorf("request %d = %v, %+v: want it admitted", i, err, ds[0])
		}
	}
	if got := ds[0].Used; got != 2 {
		t.Errorf("the third request left {u}k at %v tokens taken, want 2", got)
	}
}
