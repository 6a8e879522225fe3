package main

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// ctxStore is a counter.Store that keeps the context of its last Update.
type ctxStore struct {
	counter.Store
	ctx context.Context
}

func (s *ctxStore) Update(ctx context.Context, _ time.Time, _ []counter.Update, _ []counter.Decision) error {
	s.ctx = ctx
	return nil
}

// TestTimeoutStoreContext checks the context timeoutStore gives the store:
// the caller's own when its deadline comes before REDIS_TIMEOUT, else one
// that ends at REDIS_TIMEOUT.
func TestTimeoutStoreContext(t *testing.T) {
	const timeout = time.Hour
	inner := &ctxStore{}
	s := timeoutStore{Store: inner, timeout: timeout}

	sooner, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Update(sooner, time.Now(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if inner.ctx != sooner {
		t.Errorf("a caller whose deadline comes before REDIS_TIMEOUT: the store got another context than the caller's")
	}

	later, cancel2 := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel2()
	for name, ctx := range map[string]context.Context{"no deadline": context.Background(), "a later deadline": later} {
		if err := s.Update(ctx, time.Now(), nil, nil); err != nil {
			t.Fatal(err)
		}
		d, ok := inner.ctx.Deadline()
		if !ok || d.After(time.Now().Add(timeout)) {
			t.Errorf("a caller with %s: the store's context has deadline %v (set: %v), want one REDIS_TIMEOUT from the call at the latest", name, d, ok)
		}
	}
}
