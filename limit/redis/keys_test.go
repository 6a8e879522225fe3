package redis

import (
	"context"
	"errors"
	"sort"
	"testing"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestQueuedCallOwnsKeys: a caller whose context ends while its call waits
// in a pipeline returns, and reuses the buffer its key was made from (as
// the evaluators do, with unsafe.String over pooled scratch); the
// pipeline, sent afterwards, must still name the key the caller asked
// for, never what the buffer holds by then.
func TestQueuedCallOwnsKeys(t *testing.T) {
	for _, prefix := range []string{"", "rlpkit:"} {
		t.Run("prefix="+prefix, func(t *testing.T) { testQueuedCallOwnsKeys(t, prefix) })
	}
}

func testQueuedCallOwnsKeys(t *testing.T, prefix string) {
	srv := redistest.Start(t)
	c := newPatientClient(t, srv)
	s := newStore(t, c, Options{Pipelines: 1, KeyPrefix: prefix})
	policy := counter.Policy{Max: 10, Window: time.Hour}
	if err := s.Update(context.Background(), t0, []counter.Update{{Key: "{own}warm", Policy: policy, Cost: 1}}, make([]counter.Decision, 1)); err != nil {
		t.Fatal(err)
	}

	held, release := make(chan struct{}), make(chan struct{})
	beforeExec = func() {
		held <- struct{}{}
		<-release
	}
	t.Cleanup(func() { beforeExec = nil })

	// The first call holds the only pipeline while the server is frozen.
	srv.Pause(t)
	first := make(chan error, 1)
	go func() {
		first <- s.Update(context.Background(), t0, []counter.Update{{Key: "{own}first", Policy: policy, Cost: 1}}, make([]counter.Decision, 1))
	}()
	waitPipe(t, s, func(p *pipeliner) bool { return p.inFlight == 1 })

	// The second call queues behind it, its key over the caller's buffer.
	buf := []byte("{own}asked")
	key := unsafe.String(&buf[0], len(buf))
	ctx, cancel := context.WithCancel(context.Background())
	second := make(chan error, 1)
	go func() {
		second <- s.Update(ctx, t0, []counter.Update{{Key: key, Policy: policy, Cost: 1}}, make([]counter.Decision, 1))
	}()
	waitPipe(t, s, func(p *pipeliner) bool { return len(p.queue) == 1 })

	// The first call's reply arrives; the sender picks the second call,
	// still waited for, and is held before sending it.
	srv.Resume(t)
	if err := <-first; err != nil {
		t.Fatalf("first Update: %v", err)
	}
	<-held
	cancel()
	if err := <-second; !errors.Is(err, context.Canceled) {
		t.Fatalf("second Update after its context was cancelled = %v, want context.Canceled", err)
	}
	copy(buf, "{own}other") // the caller reuses its buffer
	close(release)
	waitPipe(t, s, func(p *pipeliner) bool { return p.inFlight == 0 })

	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	asked := map[string]bool{prefix + "{own}warm": true, prefix + "{own}first": true, prefix + "{own}asked": true}
	for _, k := range keys {
		if !asked[k] {
			t.Errorf("Redis holds key %q, which no caller asked for (keys %q)", k, keys)
		}
	}
	if v, err := c.Get(context.Background(), prefix+"{own}other").Result(); err == nil {
		t.Errorf("the key the caller's buffer held after it returned was counted: %q", v)
	}
}

// waitPipe waits until cond holds of s's pipeliner, under its lock.
func waitPipe(t *testing.T, s *Store, cond func(*pipeliner) bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.pipe.mu.Lock()
		ok := cond(s.pipe)
		s.pipe.mu.Unlock()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the pipeliner never reached the expected state")
		}
		time.Sleep(time.Millisecond)
	}
}
