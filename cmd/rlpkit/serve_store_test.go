package main

import (
	"context"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

func TestBoundedStoreBudget(t *testing.T) {
	s := boundedStore{timeout: time.Second}
	tests := []struct {
		left, want time.Duration
	}{
		{20 * time.Millisecond, 18 * time.Millisecond},   // Envoy's default timeout: nine tenths
		{500 * time.Millisecond, 450 * time.Millisecond}, // nine tenths
		{time.Second, 900 * time.Millisecond},            // the reserve reaches its cap
		{1050 * time.Millisecond, 950 * time.Millisecond},
		{2 * time.Second, time.Second}, // the timeout
		{0, 0},
		{-time.Second, -time.Second}, // already past: the update fails at once
	}
	for _, tc := range tests {
		if got := s.budget(tc.left); got != tc.want {
			t.Errorf("budget(%v) = %v, want %v", tc.left, got, tc.want)
		}
	}
}

// capturedStore records the context its Update is given.
type capturedStore struct {
	counter.Store
	ctx context.Context
}

func (s *capturedStore) Update(ctx context.Context, _ time.Time, _ []counter.Update, _ []counter.Decision) error {
	s.ctx = ctx
	return nil
}

// TestBoundedStoreContext checks the contexts the store is given: for
// limit/redis's store the caller's own, its cancellation and deadline
// unchanged, carrying the budget for the store's round trips (no timer);
// for the others one that ends by the budget.
func TestBoundedStoreContext(t *testing.T) {
	inner := &capturedStore{}
	caller, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	callerDeadline, _ := caller.Deadline()

	s := boundedStore{Store: inner, timeout: time.Second}
	if err := s.Update(caller, time.Now(), nil, nil); err != nil {
		t.Fatal(err)
	}
	if d, _ := inner.ctx.Deadline(); !d.Equal(callerDeadline) || inner.ctx.Done() != caller.Done() {
		t.Errorf("limit/redis's store got a context with deadline %v and another Done: want the caller's (deadline %v)", d, callerDeadline)
	}

	s.timer = true
	start := time.Now()
	if err := s.Update(caller, start, nil, nil); err != nil {
		t.Fatal(err)
	}
	d, ok := inner.ctx.Deadline()
	if !ok || d.After(time.Now().Add(time.Second)) || d.Before(start.Add(time.Second)) {
		t.Errorf("another store's deadline is %v (set: %v), want one --redis-timeout from the call", d, ok)
	}
}
