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

// TestBoundedStoreContext checks that the store's context ends by the budget
// while keeping the caller's cancellation: a deadline without a timer.
func TestBoundedStoreContext(t *testing.T) {
	inner := &capturedStore{}
	s := boundedStore{Store: inner, timeout: time.Second}
	caller, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	if err := s.Update(caller, start, nil, nil); err != nil {
		t.Fatal(err)
	}
	d, ok := inner.ctx.Deadline()
	if !ok || d.After(time.Now().Add(time.Second)) || d.Before(start.Add(time.Second)) {
		t.Errorf("the store's deadline is %v (set: %v), want one --redis-timeout from the call", d, ok)
	}
	if inner.ctx.Done() != caller.Done() {
		t.Error("the store's context is not cancelled with the caller's")
	}

	if err := s.Update(context.Background(), start, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, ok := inner.ctx.Deadline(); !ok {
		t.Error("a caller without a deadline: the store's context has none")
	}
}
