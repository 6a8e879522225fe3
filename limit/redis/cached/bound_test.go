package cached

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// The error bound of the package doc, for N instances over one Redis: in a
// window of maximum M, with allowance L and costs of at most C (L' =
// max(L, C)), at most M + (N-1)*L' hits are admitted, and a request is
// rejected only when the admitted hits plus its cost exceed M.
const (
	instances = 4
	limitMax  = 100
	allowance = 10
)

// windows are the fixed windows the bound is tested with: aligned to the
// epoch, and from the first hit.
var windows = []struct {
	name   string
	policy counter.Policy
}{
	{"epoch", counter.Policy{Max: limitMax, Window: time.Minute}},
	{"first hit", counter.Policy{Max: limitMax, Window: time.Minute, FirstHit: true}},
}

func newInstances(t *testing.T, srv *redistest.Server) []*Store {
	t.Helper()
	var ss []*Store
	for range instances {
		ss = append(ss, newStore(t, newClient(t, srv), Options{MaxUnflushed: allowance}))
	}
	return ss
}

// TestErrorBoundReached drives the schedule that reaches the bound: three
// instances each admit their allowance without flushing, then the fourth
// admits up to M on what it sees (only its own hits), then the three
// flush. Exactly M + (N-1)*L are admitted, Redis counts them all, and
// every instance rejects from then on.
func TestErrorBoundReached(t *testing.T) {
	srv := redistest.Start(t)
	for _, w := range windows {
		t.Run(w.name, func(t *testing.T) { testErrorBoundReached(t, srv, w.policy, "{bound}reached-"+w.name) })
	}
}

func testErrorBoundReached(t *testing.T, srv *redistest.Server, fixedMinute counter.Policy, key string) {
	ss := newInstances(t, srv)
	admitted := 0
	for _, s := range ss[1:] {
		for range allowance {
			if hit(t, s, t0, key, fixedMinute, 1) {
				admitted++
			}
		}
	}
	for range 2 * limitMax {
		if hit(t, ss[0], t0, key, fixedMinute, 1) {
			admitted++
		}
	}
	for _, s := range ss {
		mustFlush(t, s)
	}
	for i, s := range ss {
		if hit(t, s, t0.Add(time.Second), key, fixedMinute, 1) {
			t.Errorf("instance %d admitted a hit after the window's %d", i, admitted)
		}
	}
	if want := limitMax + (instances-1)*allowance; admitted != want {
		t.Errorf("admitted %d, want exactly the bound M + (N-1)*L = %d", admitted, want)
	}
	if got := stored(t, ss[0].client, key).Count; got != uint64(admitted) {
		t.Errorf("Redis counts %d hits, want the %d admitted", got, admitted)
	}
}

// TestErrorBoundRandom sends known traffic (four times M requests) through
// the four instances in random order with flushes at random points, for
// many seeds: the admitted hits stay within [M, M + (N-1)*L'], Redis ends
// up counting every admitted hit, and a rejection only ever comes when the
// hits admitted so far plus its cost exceed M.
func TestErrorBoundRandom(t *testing.T) {
	srv := redistest.Start(t)
	for _, w := range windows {
		t.Run(w.name, func(t *testing.T) { testErrorBoundRandom(t, srv, w.policy, w.name) })
	}
}

func testErrorBoundRandom(t *testing.T, srv *redistest.Server, fixedMinute counter.Policy, window string) {
	ss := newInstances(t, srv)
	tests := []struct {
		name    string
		maxCost uint64
	}{
		{"cost 1", 1},
		{"costs up to 3", 3},
		{"costs above the allowance", allowance + 5},
	}
	for _, tc := range tests {
		for seed := range uint64(25) {
			t.Run(fmt.Sprintf("%s/seed %d", tc.name, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 17))
				key := fmt.Sprintf("{bound}random-%s-%d-%d", window, tc.maxCost, seed)
				flushEvery := 1 + r.IntN(40) // mean steps between flushes of one instance
				var admitted, rejected uint64
				for step := range 4 * limitMax {
					s := ss[r.IntN(instances)]
					if r.IntN(flushEvery) == 0 {
						mustFlush(t, s)
					}
					cost := 1 + r.Uint64N(tc.maxCost)
					ok := hit(t, s, t0.Add(time.Duration(step)*time.Millisecond), key, fixedMinute, cost)
					checkInvariants(t, s, max(allowance, tc.maxCost))
					if ok {
						admitted += cost
					} else {
						rejected++
						if admitted+cost <= limitMax {
							t.Fatalf("step %d: rejected cost %d with %d admitted of %d", step, cost, admitted, limitMax)
						}
					}
				}
				for _, s := range ss {
					mustFlush(t, s)
				}
				bound := limitMax + (instances-1)*max(allowance, tc.maxCost)
				if admitted > bound {
					t.Errorf("admitted %d hits, want at most M + (N-1)*L' = %d", admitted, bound)
				}
				if admitted+tc.maxCost <= limitMax {
					t.Errorf("admitted %d hits of %d requests, want at least M - C + 1 = %d", admitted, 4*limitMax, limitMax-tc.maxCost+1)
				}
				if tc.maxCost == 1 && admitted < limitMax {
					t.Errorf("admitted %d hits, want at least M = %d", admitted, limitMax)
				}
				if got := stored(t, ss[0].client, key).Count; got != admitted {
					t.Errorf("Redis counts %d hits, want the %d admitted", got, admitted)
				}
			})
		}
	}
}

// TestErrorBoundConcurrent has 4 goroutines per instance send requests at
// once while a goroutine per instance flushes it over and over: within the
// bound, and never fewer than M.
func TestErrorBoundConcurrent(t *testing.T) {
	srv := redistest.Start(t)
	for _, w := range windows {
		t.Run(w.name, func(t *testing.T) { testErrorBoundConcurrent(t, srv, w.policy, "{bound}concurrent-"+w.name) })
	}
}

func testErrorBoundConcurrent(t *testing.T, srv *redistest.Server, fixedMinute counter.Policy, key string) {
	ss := newInstances(t, srv)
	var admitted atomic.Uint64
	stop := make(chan struct{})
	var flushers, senders sync.WaitGroup
	for _, s := range ss {
		flushers.Add(1)
		go func() {
			defer flushers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := s.Flush(context.Background()); err != nil {
					t.Error(err)
					return
				}
			}
		}()
		for range 4 {
			senders.Add(1)
			go func() {
				defer senders.Done()
				ds := make([]counter.Decision, 1)
				u := []counter.Update{{Key: key, Policy: fixedMinute, Cost: 1}}
				for range limitMax {
					if err := s.Update(context.Background(), t0, u, ds); err != nil {
						t.Error(err)
						return
					}
					if ds[0].Allowed {
						admitted.Add(1)
					}
				}
			}()
		}
	}
	senders.Wait()
	close(stop)
	flushers.Wait()
	for _, s := range ss {
		mustFlush(t, s)
	}
	n := admitted.Load()
	if bound := uint64(limitMax + (instances-1)*allowance); n < limitMax || n > bound {
		t.Errorf("admitted %d of %d requests, want between M = %d and M + (N-1)*L = %d", n, instances*4*limitMax, limitMax, bound)
	}
	if got := stored(t, ss[0].client, key).Count; got != n {
		t.Errorf("Redis counts %d hits, want the %d admitted", got, n)
	}
}

// TestErrorBoundWithExactPath: hits through the exact path (here a
// limit/redis Store on the same Redis, as a batch this store cannot
// approximate also is) see Redis but not the hits instances hold, so the
// bound is M + N*L'; this schedule reaches it.
func TestErrorBoundWithExactPath(t *testing.T) {
	srv := redistest.Start(t)
	for _, w := range windows {
		t.Run(w.name, func(t *testing.T) { testErrorBoundWithExactPath(t, srv, w.policy, "{bound}exact-"+w.name) })
	}
}

func testErrorBoundWithExactPath(t *testing.T, srv *redistest.Server, fixedMinute counter.Policy, key string) {
	ss := newInstances(t, srv)
	exact, err := redis.New(newClient(t, srv), redis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	admitted := 0
	for _, s := range ss {
		for range allowance {
			if hit(t, s, t0, key, fixedMinute, 1) {
				admitted++
			}
		}
	}
	ds := make([]counter.Decision, 1)
	for range 2 * limitMax {
		if err := exact.Update(context.Background(), t0, []counter.Update{{Key: key, Policy: fixedMinute, Cost: 1}}, ds); err != nil {
			t.Fatal(err)
		}
		if ds[0].Allowed {
			admitted++
		}
	}
	for _, s := range ss {
		mustFlush(t, s)
	}
	if want := limitMax + instances*allowance; admitted != want {
		t.Errorf("admitted %d, want exactly M + N*L = %d", admitted, want)
	}
	for i, s := range ss {
		if hit(t, s, t0, key, fixedMinute, 1) {
			t.Errorf("instance %d admitted a hit after the window's %d", i, admitted)
		}
	}
}

// TestErrorBoundAcrossWindows sends traffic over three epoch-aligned
// windows (instants only move forward): each window admits between M and
// M + (N-1)*L, whatever an instance still held of the window before.
func TestErrorBoundAcrossWindows(t *testing.T) {
	srv := redistest.Start(t)
	ss := newInstances(t, srv)
	p := windows[0].policy
	for seed := range uint64(10) {
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 29))
			key := fmt.Sprintf("{bound}windows-%d", seed)
			const steps = 3 * 4 * limitMax
			start := t0.Add(time.Duration(seed) * 10 * time.Minute) // fresh windows per seed
			var admitted [3]int
			for step := range steps {
				s := ss[r.IntN(instances)]
				if r.IntN(20) == 0 {
					mustFlush(t, s)
				}
				offset := time.Duration(step) * 3 * time.Minute / steps
				if hit(t, s, start.Add(offset), key, p, 1) {
					admitted[offset/time.Minute]++
				}
				checkInvariants(t, s, allowance)
			}
			for w, n := range admitted {
				if bound := limitMax + (instances-1)*allowance; n < limitMax || n > bound {
					t.Errorf("window %d admitted %d, want between M = %d and M + (N-1)*L = %d", w, n, limitMax, bound)
				}
			}
		})
	}
}
