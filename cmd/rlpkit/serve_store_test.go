package main

import (
	"testing"
	"time"
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
