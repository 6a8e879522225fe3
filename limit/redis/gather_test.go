package redis

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestGatherSharesTheTurn: a call that takes the turn with nothing in
// flight sends the calls that queued while it yielded in its own pipeline,
// itself first: one round trip for all, decided in arrival order, each all
// or nothing.
func TestGatherSharesTheTurn(t *testing.T) {
	srv := redistest.Start(t)
	c, err := NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	h, all := &scriptCalls{}, &commandCounter{}
	c.AddHook(h)
	c.AddHook(all)
	s := newStore(t, c, Options{Pipelines: 1})
	p := counter.Policy{Max: 4, Window: time.Hour}
	update := func(key string, cost uint64) ([]counter.Decision, error) {
		ds := make([]counter.Decision, 1)
		err := s.Update(context.Background(), t0, []counter.Update{{Key: key, Policy: p, Cost: cost}}, ds)
		return ds, err
	}
	// Redis loads the script before the test counts pipelines.
	if _, err := update("{g}warm", 1); err != nil {
		t.Fatal(err)
	}
	all.take()

	const queued = 6
	var (
		wg      sync.WaitGroup
		errs    [queued]error
		ds      [queued][]counter.Decision
		release = make(chan struct{})
		once    sync.Once
	)
	afterYield = func() {
		once.Do(func() {
			// Calls arrive while the first holds the turn: they queue.
			for i := range queued {
				wg.Go(func() { ds[i], errs[i] = update("{g}shared", 1) })
				waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == i+1 })
			}
			close(release)
		})
	}
	t.Cleanup(func() { afterYield = nil })
	first, err := update("{g}shared", 2)
	select {
	case <-release:
	default:
		t.Fatal("the first Update, with nothing in flight, never yielded")
	}
	wg.Wait()
	afterYield = nil
	if err != nil {
		t.Fatalf("the first Update: %v", err)
	}
	if want := (counter.Decision{Allowed: true, Used: 2, Remaining: 2, ResetAfter: time.Hour}); first[0] != want {
		t.Errorf("the first Update = %+v, want %+v (it came first)", first[0], want)
	}
	// Cost 1 each on 2 of 4: the first two queued fill the counter, the
	// rest are refused.
	for i := range queued {
		if errs[i] != nil {
			t.Fatalf("queued Update %d: %v", i, errs[i])
		}
		if want := i < 2; ds[i][0].Allowed != want {
			t.Errorf("queued Update %d = %+v, want allowed %v", i, ds[i][0], want)
		}
	}
	h.mu.Lock()
	pipelines, calls := h.pipelines, h.calls
	h.mu.Unlock()
	if pipelines != 1 || calls != 1 {
		t.Errorf("%d Updates sent in %d pipelines of %d script calls, want 1 of 1", queued+1, pipelines, calls)
	}
	if got := all.take(); got["evalsha"]+got["eval"] != 0 {
		t.Errorf("%d Updates sent %v besides the pipeline, want no script call of its own", queued+1, got)
	}
}

// TestGatherCallerKeepsItsDeadline: the call whose turn a pipeline of
// queued calls takes still returns when its own context ends, while the
// pipeline waits on a frozen Redis for a call with no deadline.
func TestGatherCallerKeepsItsDeadline(t *testing.T) {
	srv := redistest.Start(t)
	c := newPatientClient(t, srv)
	s := newStore(t, c, Options{Pipelines: 1})
	p := counter.Policy{Max: 4, Window: time.Hour}
	update := func(ctx context.Context, key string) error {
		return s.Update(ctx, t0, []counter.Update{{Key: key, Policy: p, Cost: 1}}, make([]counter.Decision, 1))
	}
	if err := update(context.Background(), "{d}warm"); err != nil {
		t.Fatal(err)
	}
	yielded, proceed := make(chan struct{}), make(chan struct{})
	var once sync.Once
	afterYield = func() {
		once.Do(func() {
			close(yielded)
			<-proceed
		})
	}
	t.Cleanup(func() { afterYield = nil })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- update(ctx, "{d}hurried") }()
	<-yielded
	// While the hurried call holds the turn, one without a deadline
	// queues behind it; then Redis freezes, and the deadline nears.
	queued := make(chan error, 1)
	go func() { queued <- update(context.Background(), "{d}patient") }()
	waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == 1 })
	srv.Pause(t)
	close(proceed)
	time.Sleep(50 * time.Millisecond) // the pipeline is sent, and waits
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("the call whose context ended, Redis frozen = nil error, want its context's")
		}
	case <-time.After(10 * time.Second):
		t.Error("the call whose context ended still waits 10s later, for the pipeline of a call with no deadline")
	}
	afterYield = nil
	srv.Resume(t)
	if err := <-queued; err != nil {
		t.Errorf("the queued call without a deadline, once Redis resumed: %v", err)
	}
}
