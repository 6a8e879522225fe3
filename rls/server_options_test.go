package rls

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// barrierStore holds every Update until n of them wait, then admits all.
type barrierStore struct {
	mu      sync.Mutex
	waiting int
	n       int
	all     chan struct{}
}

func (b *barrierStore) Update(ctx context.Context, _ time.Time, updates []counter.Update, ds []counter.Decision) error {
	b.mu.Lock()
	b.waiting++
	if b.waiting == b.n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
	case <-ctx.Done():
		return ctx.Err()
	}
	for i, u := range updates {
		ds[i] = counter.Decision{Allowed: true, Used: 1, Remaining: u.Policy.Max - 1, ResetAfter: u.Policy.Window}
	}
	return nil
}

// TestServerOptionsAllWorkersBusy holds more calls in the store at once
// than ServerOptions has stream workers: the calls beyond the workers get
// goroutines of their own, and all are answered.
func TestServerOptionsAllWorkersBusy(t *testing.T) {
	calls := StreamWorkers() + 8
	store := &barrierStore{n: calls, all: make(chan struct{})}
	svc, err := New([]limitador.Limit{{Namespace: "busy", MaxValue: 10, Seconds: 60, Variables: []string{"user"}}}, Options{Store: store})
	if err != nil {
		t.Fatal(err)
	}
	client := serveLoopback(t, svc)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	for i := range calls {
		wg.Go(func() {
			resp, err := client.ShouldRateLimit(ctx, request("busy", 0, desc("user", "u")))
			if err != nil {
				t.Errorf("call %d of %d held at once (%d workers): %v", i, calls, calls-8, err)
				return
			}
			if resp.GetOverallCode() != ok {
				t.Errorf("call %d: overall code %v, want OK", i, resp.GetOverallCode())
			}
		})
	}
	wg.Wait()
}
