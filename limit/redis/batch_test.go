package redis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// scriptCalls is a go-redis hook counting the EVALSHA calls sent in
// pipelines and the pipelines that hold them.
type scriptCalls struct {
	mu        sync.Mutex
	calls     int
	pipelines int
}

func (h *scriptCalls) DialHook(next goredis.DialHook) goredis.DialHook          { return next }
func (h *scriptCalls) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook { return next }
func (h *scriptCalls) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		h.mu.Lock()
		n := 0
		for _, c := range cmds {
			if c.Name() == "evalsha" {
				n++
			}
		}
		h.calls += n
		if n > 0 {
			h.pipelines++
		}
		h.mu.Unlock()
		return next(ctx, cmds)
	}
}

// queueBehindFrozen freezes srv, sends one Update that takes the only
// pipeline, queues n more behind it (each of the updates of mk), then
// resumes srv and returns the queued ones' errors and decisions.
func queueBehindFrozen(t *testing.T, srv *redistest.Server, s *Store, n int, mk func(i int) []counter.Update) ([]error, [][]counter.Decision) {
	t.Helper()
	srv.Pause(t)
	first := make(chan error, 1)
	go func() {
		first <- s.Update(context.Background(), t0, []counter.Update{{Key: "{q}first", Policy: counter.Policy{Max: 9, Window: time.Hour}, Cost: 1}}, make([]counter.Decision, 1))
	}()
	waitPipe(t, s, func(p *pipeliner) bool { return p.inFlight == 1 })
	errs := make([]error, n)
	ds := make([][]counter.Decision, n)
	var wg sync.WaitGroup
	for i := range n {
		u := mk(i)
		ds[i] = make([]counter.Decision, len(u))
		wg.Go(func() { errs[i] = s.Update(context.Background(), t0, u, ds[i]) })
		waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == i+1 })
	}
	srv.Resume(t)
	if err := <-first; err != nil {
		t.Fatalf("first Update: %v", err)
	}
	wg.Wait()
	return errs, ds
}

// TestBatchOneScriptCall queues Updates behind a pipeline in flight: they
// are then decided by one script call, in arrival order, each all or
// nothing, and BatchRequests bounds the requests per call.
func TestBatchOneScriptCall(t *testing.T) {
	for _, tc := range []struct {
		per, wantCalls int
	}{{0, 1}, {4, 3}, {1, 10}} {
		t.Run(fmt.Sprint("batch requests ", tc.per), func(t *testing.T) {
			srv := redistest.Start(t)
			c := newPatientClient(t, srv)
			h := &scriptCalls{}
			c.AddHook(h)
			s := newStore(t, c, Options{Pipelines: 1, BatchRequests: tc.per})
			shared := counter.Policy{Max: 6, Window: time.Hour}
			bucket := counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 100, Window: time.Hour}
			// Redis loads the script (NOSCRIPT, then EVAL) before counting.
			warm := []counter.Update{{Key: "{q}warm", Policy: bucket, Cost: 0}}
			if err := s.Update(context.Background(), t0, warm, make([]counter.Decision, 1)); err != nil {
				t.Fatal(err)
			}
			// Request i costs the shared counter 1, or 3 when i is 4:
			// requests 0-3 fill it to 4, 4 is refused (7 > 6) and leaves
			// it, 5 and 6 fill it, 7-9 are refused.
			errs, ds := queueBehindFrozen(t, srv, s, 10, func(i int) []counter.Update {
				cost := uint64(1)
				if i == 4 {
					cost = 3
				}
				return []counter.Update{
					{Key: fmt.Sprintf("{q}own%d", i), Policy: bucket, Cost: 1},
					{Key: "{q}shared", Policy: shared, Cost: cost},
				}
			})
			for i := range errs {
				if errs[i] != nil {
					t.Fatalf("Update %d: %v", i, errs[i])
				}
				want := i < 4 || i == 5 || i == 6
				if ds[i][1].Allowed != want {
					t.Errorf("Update %d: decisions %+v, want the shared counter allowed %v", i, ds[i], want)
				}
			}
			h.mu.Lock()
			pipelines, calls := h.pipelines, h.calls
			h.mu.Unlock()
			if pipelines != 1 || calls != tc.wantCalls {
				t.Errorf("10 queued Updates sent in %d pipelines of %d script calls, want 1 of %d", pipelines, calls, tc.wantCalls)
			}
			for i := range 10 {
				used := mustDo(t, c, "GET", fmt.Sprintf("{q}own%d", i))
				if want := i < 4 || i == 5 || i == 6; (used != nil) != want {
					t.Errorf("{q}own%d holds %v: want a counter %v", i, used, want)
				}
			}
		})
	}
}

// batchRequest is one Update of a batch: its instant and updates.
type batchRequest struct {
	now     time.Time
	updates []counter.Update
}

// batchStep sends reqs to the store as one pipeline, every request queued
// in it, and compares each one's decisions with the model's for the
// requests run one by one in the same order.
func (r *modelRun) batchStep(reqs []batchRequest) {
	r.t.Helper()
	batches := make([]*batch, len(reqs))
	calls := make([]*call, len(reqs))
	for i, q := range reqs {
		batches[i] = r.store.prepare(context.Background(), q.now.UnixMicro(), q.updates)
		calls[i] = &batches[i].call
	}
	r.store.pipe.exec(calls, &sender{pipe: r.store.client.Pipeline()})
	for i, q := range reqs {
		want := r.m.update(q.now, q.updates)
		<-calls[i].done
		if calls[i].err != nil {
			r.t.Fatalf("request %d of %d (t=%d, %+v): %v", i, len(reqs), q.now.UnixMicro(), q.updates, calls[i].err)
		}
		got := make([]counter.Decision, len(q.updates))
		if err := batches[i].finish(false, q.now, calls[i].result, q.updates, got); err != nil {
			r.t.Fatalf("request %d of %d: %v", i, len(reqs), err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			r.t.Fatalf("request %d of %d (t=%d, %+v) decisions (-model +store):\n%s", i, len(reqs), q.now.UnixMicro(), q.updates, diff)
		}
		r.store.release(batches[i])
	}
	r.checkStates(fmt.Sprintf("a batch of %d requests", len(reqs)))
}

// TestBatchMatchesModel sends random batches of requests, each of random
// updates over a few shared keys at its own instant, as script calls of
// several requests: each request's decisions, and the states stored after
// the batch, are the model's for the requests run one by one in order.
func TestBatchMatchesModel(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	var fixed []counter.Policy
	for _, p := range modelPolicies {
		if p.Algorithm == counter.AlgorithmFixedWindow {
			fixed = append(fixed, p)
		}
	}
	for seed := range uint64(6) {
		policies, name := modelPolicies, fmt.Sprint("seed ", seed)
		if seed >= 4 {
			policies, name = fixed, fmt.Sprint("fixed-window seed ", seed)
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 11))
			r := newModelRun(t, c, 5)
			r.store.pipe.per = 1 + rng.IntN(8)
			policyOf := make([]counter.Policy, len(r.keys))
			for k := range policyOf {
				policyOf[k] = policies[rng.IntN(len(policies))]
			}
			now := time.Unix(1_699_920_000, 0)
			for range 300 {
				reqs := make([]batchRequest, 1+rng.IntN(12))
				for q := range reqs {
					now = now.Add(time.Duration(rng.Int64N(int64(300*time.Millisecond))) - 20*time.Millisecond)
					if rng.IntN(40) == 0 {
						policyOf[rng.IntN(len(policyOf))] = policies[rng.IntN(len(policies))]
					}
					reqs[q] = batchRequest{now: now, updates: randomUpdates(rng, r.keys, policyOf)}
				}
				r.batchStep(reqs)
			}
		})
	}
}

// randomUpdates returns 1 to 4 updates of keys under their policies, with
// costs from 0 to 3 and sometimes beyond any max.
func randomUpdates(rng *rand.Rand, keys []string, policyOf []counter.Policy) []counter.Update {
	updates := make([]counter.Update, 1+rng.IntN(4))
	for i := range updates {
		k := rng.IntN(len(keys))
		cost := uint64(rng.IntN(4))
		switch rng.IntN(40) {
		case 0:
			cost = math.MaxUint64
		case 1:
			cost = counter.MaxPolicyValue + uint64(rng.IntN(3))
		}
		updates[i] = counter.Update{Key: keys[k], Policy: policyOf[k], Cost: cost}
	}
	return updates
}

// TestBatchForeignValue queues Updates behind a pipeline in flight, one of
// them on a key holding something other than a counter: that one fails,
// naming the key, and the others of its script call are decided.
func TestBatchForeignValue(t *testing.T) {
	srv := redistest.Start(t)
	c := newPatientClient(t, srv)
	mustDo(t, c, "SET", "{q}junk", "not a state")
	s := newStore(t, c, Options{Pipelines: 1})
	p := counter.Policy{Max: 5, Window: time.Hour}
	errs, ds := queueBehindFrozen(t, srv, s, 3, func(i int) []counter.Update {
		u := []counter.Update{{Key: "{q}shared", Policy: p, Cost: 1}}
		if i == 1 {
			u = append(u, counter.Update{Key: "{q}junk", Policy: p, Cost: 1})
		}
		return u
	})
	if errs[1] == nil || !strings.Contains(errs[1].Error(), `"{q}junk" does not hold a counter state`) {
		t.Errorf("Update on {q}junk = %v, want an error naming the key", errs[1])
	}
	for _, i := range []int{0, 2} {
		if errs[i] != nil || !ds[i][0].Allowed {
			t.Errorf("Update %d = %v, %+v: want it admitted", i, errs[i], ds[i])
		}
	}
	if got := ds[2][0].Used; got != 2 {
		t.Errorf("the third Update left {q}shared at %v, want 2 (the failed one adds nothing)", got)
	}
}
