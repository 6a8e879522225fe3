package deadline

import (
	"context"
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	now := time.Now()
	parent, cancel := context.WithDeadline(context.Background(), now.Add(time.Hour))
	defer cancel()

	ctx := Within(parent, now.Add(time.Minute))
	if d, ok := ctx.Deadline(); !ok || !d.Equal(now.Add(time.Minute)) {
		t.Errorf("Deadline() = %v, %v; want the earlier bound", d, ok)
	}
	if ctx.Done() != parent.Done() {
		t.Error("Done is not the parent's")
	}
	if Within(parent, now.Add(2*time.Hour)) != parent {
		t.Error("a later bound did not return the parent itself")
	}
	if d, ok := Within(context.Background(), now).Deadline(); !ok || !d.Equal(now) {
		t.Errorf("without a parent deadline: Deadline() = %v, %v", d, ok)
	}

	// The contract holds past the bound: Err stays nil until Done closes.
	past := Within(parent, now.Add(-time.Second))
	if err := past.Err(); err != nil {
		t.Errorf("Err() = %v before the parent ended", err)
	}
	cancel()
	<-past.Done()
	if past.Err() != context.Canceled {
		t.Errorf("Err() = %v after the parent was cancelled", past.Err())
	}
}

func TestWithinAllocatesOnlyItsContext(t *testing.T) {
	ctx := context.Background()
	bound := time.Now().Add(time.Second)
	if n := testing.AllocsPerRun(100, func() { _ = Within(ctx, bound) }); n > 1 {
		t.Errorf("Within allocates %v times, want at most 1 (the context)", n)
	}
}
