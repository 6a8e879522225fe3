package redis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// pipelineSizes is a go-redis hook recording the largest pipeline sent.
type pipelineSizes struct{ largest atomic.Int64 }

func (h *pipelineSizes) DialHook(next goredis.DialHook) goredis.DialHook          { return next }
func (h *pipelineSizes) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook { return next }
func (h *pipelineSizes) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		for n := int64(len(cmds)); ; {
			old := h.largest.Load()
			if n <= old || h.largest.CompareAndSwap(old, n) {
				break
			}
		}
		return next(ctx, cmds)
	}
}

// hammer runs goroutines × perG Updates of two keys (one a fixed window of
// max, one a token bucket of max) per call and returns how many calls were
// admitted; every call must succeed.
func hammer(t *testing.T, s *Store, tag string, goroutines, perG int, max uint64) int {
	t.Helper()
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			ds := make([]counter.Decision, 2)
			for i := range perG {
				u := []counter.Update{
					{Key: "{" + tag + "}fixed", Policy: counter.Policy{Max: max, Window: time.Hour}, Cost: 1},
					{Key: "{" + tag + "}bucket", Policy: counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: max, Window: time.Hour}, Cost: 1},
				}
				if err := s.Update(context.Background(), t0, u, ds); err != nil {
					t.Errorf("goroutine %d, call %d: %v", g, i, err)
					return
				}
				if ds[0].Allowed != ds[1].Allowed {
					t.Errorf("goroutine %d, call %d: decisions %+v: want both or neither allowed", g, i, ds)
				}
				if ds[0].Allowed {
					admitted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return int(admitted.Load())
}

// TestPipelineExact sends many concurrent Updates through one pipeline at
// a time: they are batched (a pipeline holds several calls), and the
// counters admit exactly max, all or nothing.
func TestPipelineExact(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	sizes := &pipelineSizes{}
	c.AddHook(sizes)
	s := newStore(t, c, Options{Pipelines: 1})
	const max = 300
	if got := hammer(t, s, "exact", 32, 20, max); got != max {
		t.Errorf("%d calls admitted by counters of max %d, want exactly %d", got, max, max)
	}
	if sizes.largest.Load() < 2 {
		t.Errorf("largest pipeline: %d calls, want several (32 concurrent callers, 1 pipeline in flight)", sizes.largest.Load())
	}
}

// TestPipelineNoScript flushes the server's scripts under concurrent
// Updates: the pipelined EVALSHAs answered NOSCRIPT are sent again with
// EVAL, and no call fails or counts twice.
func TestPipelineNoScript(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	s := newStore(t, c, Options{Pipelines: 1})
	const max = 1000
	var got int
	for round := range 5 {
		mustDo(t, c, "SCRIPT", "FLUSH")
		got += hammer(t, s, "noscript", 16, 4, max)
		if want := 16 * 4 * (round + 1); got != want {
			t.Fatalf("after round %d: %d calls admitted, want %d", round, got, want)
		}
	}
	// The counters hold exactly the admitted calls.
	ds := make([]counter.Decision, 1)
	u := []counter.Update{{Key: "{noscript}fixed", Policy: counter.Policy{Max: max, Window: time.Hour}}}
	if err := s.Update(context.Background(), t0, u, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Used != float64(got) {
		t.Errorf("counter after %d admitted calls: Used %v, want %d", got, ds[0].Used, got)
	}
}

// TestPipelineQueuedDeadline freezes Redis while one call holds the only
// pipeline: a call queued behind it returns when its own deadline passes,
// is never sent, and both work again once Redis resumes.
func TestPipelineQueuedDeadline(t *testing.T) {
	srv := redistest.Start(t)
	c := newPatientClient(t, srv)
	s := newStore(t, c, Options{Pipelines: 1})
	u := func(key string) []counter.Update {
		return []counter.Update{{Key: "{queued}" + key, Policy: counter.Policy{Max: 10, Window: time.Hour}, Cost: 1}}
	}
	if err := s.Update(context.Background(), t0, u("warm"), make([]counter.Decision, 1)); err != nil {
		t.Fatal(err)
	}

	srv.Pause(t)
	first := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		first <- s.Update(ctx, t0, u("first"), make([]counter.Decision, 1))
	}()
	// Wait until the first call holds the pipeline.
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.pipe.mu.Lock()
		busy := s.pipe.inFlight == 1
		s.pipe.mu.Unlock()
		if busy {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first call never took the pipeline")
		}
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	start := time.Now()
	err := s.Update(ctx, t0, u("second"), make([]counter.Decision, 1))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("queued Update on a frozen server = %v, want context.DeadlineExceeded", err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Errorf("queued Update returned after %v, want about its 200ms deadline", waited)
	}
	srv.Resume(t)
	if err := <-first; err != nil {
		t.Errorf("first Update after Resume: %v", err)
	}
	// The queued call was never sent: its counter is untouched.
	ds := make([]counter.Decision, 1)
	check := u("second")
	check[0].Cost = 0
	if err := s.Update(context.Background(), t0, check, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Used != 0 {
		t.Errorf("counter of the call that gave up while queued: Used %v, want 0", ds[0].Used)
	}
}

// TestPipelineCluster batches concurrent Updates of several hash tags on a
// Cluster client: each call goes to its slot's node and stays exact.
func TestPipelineCluster(t *testing.T) {
	srv := redistest.StartCluster(t)
	c, err := NewClient("redis://" + srv.Addr + "?addr=" + srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := newStore(t, c, Options{Pipelines: 1})
	const max = 50
	var wg sync.WaitGroup
	got := make([]int, 4)
	for tag := range got {
		wg.Go(func() { got[tag] = hammer(t, s, fmt.Sprintf("cluster%d", tag), 8, 10, max) })
	}
	wg.Wait()
	for tag, n := range got {
		if n != max {
			t.Errorf("hash tag %d: %d calls admitted, want %d", tag, n, max)
		}
	}
}

// TestWithDeadline freezes Redis: an Update under WithDeadline, whose own
// context has no deadline, fails once the deadline passes rather than
// waiting for Redis, alone or queued behind another call, and the counters
// work again once Redis resumes.
func TestWithDeadline(t *testing.T) {
	srv := redistest.Start(t)
	c := newPatientClient(t, srv)
	s := newStore(t, c, Options{Pipelines: 1})
	u := []counter.Update{{Key: "{wd}k", Policy: counter.Policy{Max: 10, Window: time.Hour}, Cost: 1}}
	if err := s.Update(context.Background(), t0, u, make([]counter.Decision, 1)); err != nil {
		t.Fatal(err)
	}
	srv.Pause(t)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			ctx := WithDeadline(context.Background(), time.Now().Add(200*time.Millisecond))
			errs <- s.Update(ctx, t0, u, make([]counter.Decision, 1))
		}()
	}
	for range 2 {
		select {
		case err := <-errs:
			if err == nil {
				t.Error("Update on a frozen Redis under WithDeadline succeeded")
			}
		case <-time.After(30 * time.Second):
			t.Fatal("Update on a frozen Redis under WithDeadline never returned")
		}
	}
	srv.Resume(t)
	if err := s.Update(context.Background(), t0, u, make([]counter.Decision, 1)); err != nil {
		t.Errorf("Update after Resume: %v", err)
	}
}

// TestBound checks the context an Update's round trips are made under.
func TestBound(t *testing.T) {
	now := time.Now()
	parent, cancel := context.WithDeadline(context.Background(), now.Add(time.Hour))
	defer cancel()
	if bound(parent) != parent {
		t.Error("without WithDeadline: not the context itself")
	}
	ctx := bound(WithDeadline(parent, now.Add(time.Minute)))
	if d, ok := ctx.Deadline(); !ok || !d.Equal(now.Add(time.Minute)) {
		t.Errorf("Deadline() = %v, %v; want the earlier one WithDeadline gave", d, ok)
	}
	if ctx.Done() != parent.Done() {
		t.Error("Done is not the parent's")
	}
	if ctx.Err() != nil {
		t.Errorf("Err() = %v before the parent ended", ctx.Err())
	}
	if later := WithDeadline(parent, now.Add(2*time.Hour)); later != parent {
		t.Error("WithDeadline of a later deadline did not return the context itself")
	}
	if d, _ := bound(WithDeadline(context.Background(), now)).Deadline(); !d.Equal(now) {
		t.Errorf("without a parent deadline: Deadline() = %v, want %v", d, now)
	}
}
