package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// nodeChanges records a Breaker's OnNodeChange calls, "down addr" and
// "up addr".
type nodeChanges struct {
	mu  sync.Mutex
	got []string
}

func (n *nodeChanges) record(addr string, up bool, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if up {
		n.got = append(n.got, "up "+addr)
	} else {
		n.got = append(n.got, "down "+addr)
	}
}

func (n *nodeChanges) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.got...)
}

// clusterStore returns a Store with a Breaker on a Cluster client of c,
// the breaker probing every 50 to 200 ms, its node changes recorded.
func clusterStore(t *testing.T, c *redistest.Cluster, o Options) (*Store, *Breaker, *nodeChanges, goredis.UniversalClient) {
	t.Helper()
	client, err := NewClient(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	nc := &nodeChanges{}
	b, err := NewBreaker(client, BreakerOptions{
		ProbeInterval: 50 * time.Millisecond, MaxProbeInterval: 200 * time.Millisecond, OnNodeChange: nc.record,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	o.Breaker = b
	return newStore(t, client, o), b, nc, client
}

// hit charges one hit to key (of a large limit) within d and returns the
// error and the decision.
func hit(s *Store, key string, d time.Duration) (counter.Decision, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ds := make([]counter.Decision, 1)
	err := s.Update(ctx, t0, []counter.Update{{Key: key, Policy: counter.Policy{Max: 1_000_000, Window: time.Hour}, Cost: 1}}, ds)
	if err == nil && ctx.Err() != nil {
		err = fmt.Errorf("answered after its deadline")
	}
	return ds[0], err
}

// TestClusterMasterDown kills one master of a 3+3 Cluster under load: the
// calls for the other masters' slots keep answering within their deadline,
// with exact counts; those for the dead master's slots fail at once (the
// Breaker's error) once it is known down, and answer again once its
// replica is promoted. The master's outage and recovery are told once
// each.
func TestClusterMasterDown(t *testing.T) {
	c := redistest.StartCluster3(t)
	s, b, nc, _ := clusterStore(t, c, Options{})
	tags := []string{redistest.TagOn(0, "down"), redistest.TagOn(1, "down"), redistest.TagOn(2, "down")}
	for _, tag := range tags {
		if _, err := hit(s, tag+"k", 5*time.Second); err != nil {
			t.Fatalf("%s before the failure: %v", tag, err)
		}
	}
	dead := c.Nodes[1]
	var stop atomic.Bool
	var wg sync.WaitGroup
	var healthyErrs atomic.Int64
	var firstErr atomic.Value
	counts := make([]atomic.Int64, len(tags))
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				k := []int{0, 2}[(w+i)%2]
				if _, err := hit(s, tags[k]+"k", time.Second); err != nil {
					healthyErrs.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("%s: %v", tags[k], err))
					continue
				}
				counts[k].Add(1)
			}
		}()
	}
	// The dead master's slots under load too, to measure the failover.
	fm := &failoverMeter{}
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if _, err := fm.observe(hit(s, tags[1]+"k", time.Second)); err != nil {
					time.Sleep(time.Millisecond) // failing fast: leave the processors to the others
				}
			}
		}()
	}
	time.Sleep(200 * time.Millisecond) // some load before the failure
	fm.kill()
	dead.Kill()

	// The dead master's slots fail, at once once it is known down.
	waitUntil(t, 10*time.Second, "the dead master known down", func() bool {
		_, err := hit(s, tags[1]+"k", time.Second)
		return errors.Is(err, counter.ErrStoreDown)
	})
	_, err := hit(s, tags[1]+"k", time.Minute)
	if !errors.Is(err, counter.ErrStoreDown) || !strings.Contains(err.Error(), dead.Addr) {
		t.Errorf("a call for the dead master's slots = %v, want counter.ErrStoreDown naming %s", err, dead.Addr)
	}
	if err := b.Err(); err != nil {
		t.Errorf("the store's Err with one master of three down = %v, want nil", err)
	}
	if h := b.Nodes(); !hasNode(h, dead.Addr, false) {
		t.Errorf("Nodes() = %v, want %s down", h, dead.Addr)
	}

	// After the promotion they answer again.
	c.WaitPromoted(t, redistest.Slot(tags[1]), dead)
	waitUntil(t, 10*time.Second, "the dead master's slots answering", func() bool {
		_, err := hit(s, tags[1]+"k", time.Second)
		return err == nil
	})
	stop.Store(true)
	wg.Wait()
	if n := healthyErrs.Load(); n != 0 {
		t.Errorf("%d calls for the live masters' slots failed, the first: %v", n, firstErr.Load())
	}
	for _, k := range []int{0, 2} {
		d, err := hit(s, tags[k]+"k", 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		// 1 before, counts[k] under load, this one.
		if want := uint64(1_000_000 - 2 - counts[k].Load()); d.Remaining != want {
			t.Errorf("%s: remaining %d after %d admitted hits, want %d", tags[k], d.Remaining, counts[k].Load()+2, want)
		}
	}
	d, err := hit(s, tags[1]+"k", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	fm.report(t, 1_000_000-d.Remaining, 3) // the hits before the load, ending waitUntil, and this one
	// The calls may find the new master before a probe tells the old one gone.
	waitUntil(t, 10*time.Second, "the master's recovery told", func() bool { return len(nc.list()) >= 2 })
	want := []string{"down " + dead.Addr, "up " + dead.Addr}
	if got := nc.list(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("node changes = %q, want %q", got, want)
	}
}

func hasNode(h []NodeHealth, addr string, up bool) bool {
	for _, n := range h {
		if n.Addr == addr {
			return (n.Err == nil) == up
		}
	}
	return false
}

// waitUntil polls cond until it holds, failing the test after d.
func waitUntil(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestProbeNamesTheDialError: a probe of a Redis that refuses
// connections fails with the dial's error, not with the PING's deadline
// that go-redis's dial retries ran into.
func TestProbeNamesTheDialError(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	srv.Kill()
	b, err := NewBreaker(c, BreakerOptions{CheckInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.Probe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "connection refused") || strings.Contains(err.Error(), "deadline") {
		t.Errorf("Probe of a Redis refusing connections = %v, want the refused dial named", err)
	}
}

// failoverMeter measures what a failover costs the calls of one key under
// load: how many failed, for how long, and how many admitted hits the
// promoted replica lacks.
type failoverMeter struct {
	mu         sync.Mutex
	killed     time.Time
	admitted   uint64 // hits admitted
	failed     int
	unsure     int // failed calls that may have run: not refused at once
	firstFail  time.Time
	lastFail   time.Time
	resumed    time.Time // the first success after the kill
	beforeKill uint64    // hits admitted before the kill
}

func (m *failoverMeter) kill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.killed = time.Now()
	m.beforeKill = m.admitted
}

func (m *failoverMeter) observe(d counter.Decision, err error) (counter.Decision, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if err != nil {
		m.failed++
		if !errors.Is(err, counter.ErrStoreDown) {
			m.unsure++
		}
		if m.firstFail.IsZero() {
			m.firstFail = now
		}
		m.lastFail = now
		return d, err
	}
	m.admitted++
	if !m.killed.IsZero() && m.resumed.IsZero() && !m.firstFail.IsZero() {
		m.resumed = now
	}
	return d, nil
}

// report logs the measures given the count the store holds after the
// failover (count, which includes extra hits made outside the meter), and
// fails the test when a hit was counted more than once: the count may
// exceed the hits admitted only by calls that failed after they were sent
// (a reply lost when the master died, or a deadline), which may have run.
func (m *failoverMeter) report(t *testing.T, count, extra uint64) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	admitted := m.admitted + extra
	if count > admitted+uint64(m.unsure) {
		t.Errorf("the store counts %d hits, %d were admitted and %d more may have run: some were counted twice", count, admitted, m.unsure)
	}
	var failing time.Duration
	if !m.firstFail.IsZero() {
		failing = m.lastFail.Sub(m.firstFail)
	}
	t.Logf("failover under load: %d hits admitted (%d before the kill), %d calls failed over %v (%d of them after being sent), resumed %v after the kill; counts lost in the failover: %d",
		admitted, m.beforeKill, m.failed, failing.Round(time.Millisecond), m.unsure, m.resumed.Sub(m.killed).Round(time.Millisecond), int64(admitted)-int64(count))
}
