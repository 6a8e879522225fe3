package redis

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// TestSentinelFailover kills the master of a Sentinel setup under load:
// calls fail (at once once the Breaker knows Redis down) until the
// sentinels promote the replica, then answer again through the same
// client; no hit is counted twice, and what the failover cost is logged.
func TestSentinelFailover(t *testing.T) {
	st := redistest.StartSentinel(t)
	client, err := NewClient(st.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	ch := newChanges()
	b, err := NewBreaker(client, BreakerOptions{ProbeInterval: 50 * time.Millisecond, MaxProbeInterval: 200 * time.Millisecond, OnChange: ch.onChange})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	s := newStore(t, client, Options{Breaker: b})
	const key = "{sentinel}k"
	if _, err := hit(s, key, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	fm := &failoverMeter{}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := fm.observe(hit(s, key, time.Second)); err != nil {
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	fm.kill()
	st.Master.Kill()
	if got := st.WaitFailover(t, st.Master.Addr); got != st.Replica.Addr {
		t.Fatalf("promoted %s, want %s", got, st.Replica.Addr)
	}
	waitUntil(t, 15*time.Second, "calls answering after the failover", func() bool {
		_, err := hit(s, key, time.Second)
		return err == nil
	})
	stop.Store(true)
	wg.Wait()
	d, err := hit(s, key, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fm.report(t, 1_000_000-d.Remaining, 3) // the hits before the load, ending waitUntil, and this one
	if fm.failed == 0 {
		t.Errorf("no call failed while the master was dead")
	}
	if b.Err() != nil {
		t.Errorf("Err after the failover = %v, want nil", b.Err())
	}
}
