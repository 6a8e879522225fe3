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

// evalCalls is a go-redis hook counting script calls (EVALSHA and EVAL),
// alone or in pipelines.
type evalCalls struct{ n atomic.Int64 }

func (h *evalCalls) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (h *evalCalls) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		h.count(cmd)
		return next(ctx, cmd)
	}
}

func (h *evalCalls) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		for _, c := range cmds {
			h.count(c)
		}
		return next(ctx, cmds)
	}
}

func (h *evalCalls) count(c goredis.Cmder) {
	if n := c.Name(); n == "evalsha" || n == "eval" {
		h.n.Add(1)
	}
}

// fakeWindows replaces the windows' timer until the test ends: a window
// ends only when the test calls end.
type fakeWindows struct {
	mu     sync.Mutex
	opened []time.Duration
	ends   []func()
}

func useFakeWindows(t *testing.T) *fakeWindows {
	f := &fakeWindows{}
	old := afterFunc
	afterFunc = func(d time.Duration, fn func()) stopper {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.opened = append(f.opened, d)
		f.ends = append(f.ends, fn)
		return stoppedTimer{}
	}
	t.Cleanup(func() { afterFunc = old })
	return f
}

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool { return true }

func (f *fakeWindows) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.opened)
}

// end ends window i, as its timer would.
func (f *fakeWindows) end(i int) {
	f.mu.Lock()
	fn := f.ends[i]
	f.mu.Unlock()
	fn()
}

// windowStore returns a Store with window w and at most per Updates per
// script call, on a fresh Redis whose scripts are loaded, and the hook
// counting its script calls.
func windowStore(t *testing.T, w time.Duration, per int) (*Store, *evalCalls) {
	t.Helper()
	srv := redistest.Start(t)
	c := newClient(t, srv)
	warm := newStore(t, c, Options{})
	for _, p := range []counter.Policy{fixedHour, {Algorithm: counter.AlgorithmTokenBucket, Max: 9, Window: time.Hour}} {
		if err := warm.Update(context.Background(), t0, []counter.Update{{Key: "{w}warm", Policy: p}}, make([]counter.Decision, 1)); err != nil {
			t.Fatal(err)
		}
	}
	h := &evalCalls{}
	c.AddHook(h)
	return newStore(t, c, Options{Window: w, BatchRequests: per}), h
}

var fixedHour = counter.Policy{Max: 3, Window: time.Hour}

// TestWindowFullBatchIsSentAtOnce: with a window far longer than the
// test, Updates that find the pipeline free wait for each other, and the
// BatchRequests-th one sends all of them in one script call, each decided
// all or nothing in arrival order (3 of the 4 fit the shared counter).
func TestWindowFullBatchIsSentAtOnce(t *testing.T) {
	s, h := windowStore(t, time.Hour, 4)
	errs := make([]error, 4)
	ds := make([][]counter.Decision, 4)
	var wg sync.WaitGroup
	for i := range 4 {
		ds[i] = make([]counter.Decision, 2)
		u := []counter.Update{
			{Key: fmt.Sprintf("{w}own%d", i), Policy: fixedHour, Cost: 1},
			{Key: "{w}shared", Policy: fixedHour, Cost: 1},
		}
		wg.Go(func() { errs[i] = s.Update(context.Background(), t0, u, ds[i]) })
		if i < 3 {
			waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == i+1 })
		}
	}
	wg.Wait()
	allowed := 0
	for i := range 4 {
		if errs[i] != nil {
			t.Fatalf("Update %d: %v", i, errs[i])
		}
		if ds[i][1].Allowed {
			allowed++
		}
	}
	if got := h.n.Load(); got != 1 {
		t.Errorf("4 Updates within one window sent %d script calls, want 1", got)
	}
	if allowed != 3 {
		t.Errorf("%d of 4 Updates allowed on a counter of 3, want 3", allowed)
	}
}

// TestWindowEndSendsTheQueue: a lone Update waits for its window to end
// (no script call before), then is sent; one window is open at a time, and
// a caller whose context ends within the window returns without being
// sent.
func TestWindowEndSendsTheQueue(t *testing.T) {
	f := useFakeWindows(t)
	s, h := windowStore(t, 250*time.Microsecond, 64)
	done := make(chan error, 2)
	u := []counter.Update{{Key: "{w}a", Policy: fixedHour, Cost: 1}}
	go func() { done <- s.Update(context.Background(), t0, u, make([]counter.Decision, 1)) }()
	waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == 1 })
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		done <- s.Update(ctx, t0, []counter.Update{{Key: "{w}b", Policy: fixedHour, Cost: 1}}, make([]counter.Decision, 1))
	}()
	waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == 2 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("the Update canceled within the window = %v, want context.Canceled", err)
	}
	if n, got := f.count(), h.n.Load(); n != 1 || got != 0 {
		t.Fatalf("before the window ends: %d windows opened, %d script calls; want 1 and 0", n, got)
	}
	if f.opened[0] != 250*time.Microsecond {
		t.Errorf("window of %v, want 250µs", f.opened[0])
	}
	f.end(0)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := h.n.Load(); got != 1 {
		t.Errorf("%d script calls once the window ended, want 1", got)
	}
	var v string
	if err := s.client.Get(context.Background(), "{w}b").Scan(&v); !errors.Is(err, goredis.Nil) {
		t.Errorf("the canceled Update's key holds %q (%v), want none", v, err)
	}
}

func TestNegativeWindow(t *testing.T) {
	srv := redistest.Start(t)
	if _, err := New(newClient(t, srv), Options{Window: -time.Millisecond}); err == nil {
		t.Error("New with a negative window: no error")
	}
}

// BenchmarkWindow measures Updates from 2 and from 8 goroutines per core
// without a window and with 200µs, with the round trips per Update.
func BenchmarkWindow(b *testing.B) {
	srv := redistest.Start(b)
	c := newClient(b, srv)
	var rt roundTrips
	c.AddHook(&rt)
	updates := batchOf("benchwindow", 1)
	updates[0].Policy = counter.Policy{Max: counter.MaxPolicyValue, Window: time.Hour}
	for _, w := range []time.Duration{0, 200 * time.Microsecond} {
		s := newStore(b, c, Options{Window: w})
		if err := s.Update(context.Background(), t0, updates, make([]counter.Decision, 1)); err != nil {
			b.Fatal(err)
		}
		for _, par := range []int{2, 8} {
			b.Run(fmt.Sprintf("window=%v/goroutines-per-core=%d", w, par), func(b *testing.B) {
				b.SetParallelism(par)
				start := rt.n.Load()
				b.RunParallel(func(pb *testing.PB) {
					ds := make([]counter.Decision, 1)
					for pb.Next() {
						if err := s.Update(context.Background(), t0, updates, ds); err != nil {
							b.Error(err)
							return
						}
					}
				})
				b.ReportMetric(float64(rt.n.Load()-start)/float64(b.N), "roundtrips/op")
			})
		}
	}
}
