package rls

import (
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestReserve checks the reservation mode step by step: a check reserves
// its hits_addend (else the default estimate), all or nothing over both
// token limits; a report settles to the actual usage, giving back the rest.
func TestReserve(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s, err := New(tokenLimits, Options{Store: newStore(t), Clock: fixedClock(t0), CheckReport: CheckReport{Mode: ModeReserve, DefaultEstimate: 300}})
			if err != nil {
				t.Fatal(err)
			}
			k := serveKuadrant(t, s)
			steps := []struct {
				method string
				req    *rlsv3.RateLimitRequest
				want   rlsv3.RateLimitResponse_Code
			}{
				{"CheckRateLimit", tokenRequest("alice", "paid", 700), ok},               // reserves 700 of 1000
				{"CheckRateLimit", tokenRequest("alice", "paid", 301), over},             // 1001: nothing reserved
				{"CheckRateLimit", tokenRequest("alice", "paid", 0), ok},                 // the default, 300: 1000
				{"CheckRateLimit", tokenRequest("alice", "paid", 1), over},               // full
				{"Report", tokenRequest("alice", "paid", 100, ReservedEntry, "700"), ok}, // 400
				{"Report", tokenRequest("alice", "paid", 350), ok},                       // default 300: +50, 450
				{"CheckRateLimit", tokenRequest("alice", "paid", 550), ok},               // 1000
				{"CheckRateLimit", tokenRequest("alice", "paid", 1), over},
				// Two token limits: the free tier's 600 is the stricter.
				{"CheckRateLimit", tokenRequest("carol", "free", 601), over},
				{"CheckRateLimit", tokenRequest("carol", "free", 600), ok},
				{"CheckRateLimit", tokenRequest("carol", "paid", 400), ok}, // 1000 on the per-user limit
				{"CheckRateLimit", tokenRequest("carol", "paid", 1), over},
				// Giving back never takes a counter below zero.
				{"Report", tokenRequest("dave", "paid", 1, ReservedEntry, "900"), ok},
				{"CheckRateLimit", tokenRequest("dave", "paid", 1000), ok},
			}
			for i, st := range steps {
				if got := k.code(t, st.method, st.req); got != st.want {
					t.Fatalf("step %d: %s(%v) = %v, want %v", i, st.method, st.req, got, st.want)
				}
			}
			_, err = k.call(t, "Report", tokenRequest("alice", "paid", 1, ReservedEntry, "lots"))
			if grpcstatus.Code(err) != codes.InvalidArgument {
				t.Errorf("Report with %s=lots: %v, want InvalidArgument", ReservedEntry, err)
			}
		})
	}
}

// overshootLoad runs rounds of n concurrent requests against the token
// budget of tokenLimits (1,000 a minute for one user): every request
// checks, declaring max_tokens 100 as its hits_addend; the admitted ones
// are all in flight together (a barrier) before each reports its usage,
// 60 tokens, except the first admitted, which uses 150 (an overrun of 50
// over its estimate). Rounds go on until one admits nothing. It returns
// the requests admitted and the tokens they used.
func overshootLoad(t *testing.T, k kuadrantClient, n int) (admitted, used int) {
	first := true
	for round := 0; ; round++ {
		var mu sync.Mutex
		var wg sync.WaitGroup
		var in []int // the usage of each admitted request
		checked := make(chan struct{})
		var arrived sync.WaitGroup
		arrived.Add(n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := k.call(t, "CheckRateLimit", tokenRequest("alice", "paid", 100))
				arrived.Done()
				if err != nil {
					t.Error(err)
					return
				}
				if resp.OverallCode != ok {
					return
				}
				mu.Lock()
				usage := 60
				if first {
					usage, first = 150, false
				}
				in = append(in, usage)
				mu.Unlock()
				<-checked // every request of the round is in flight
				if _, err := k.call(t, "Report", tokenRequest("alice", "paid", uint32(usage), ReservedEntry, strconv.Itoa(100))); err != nil {
					t.Error(err)
				}
			}()
		}
		arrived.Wait()
		close(checked)
		wg.Wait()
		if t.Failed() {
			t.FailNow()
		}
		if len(in) == 0 {
			return admitted, used
		}
		for _, u := range in {
			admitted++
			used += u
		}
		if round > 100 {
			t.Fatal("the budget never ran out")
		}
	}
}

// flowLoad runs n clients that each, until refused, check (max_tokens
// 100), yield as a generation would, and report 60 tokens (the first
// admitted request 150): requests in flight overlap as the scheduler
// lets them rather than all at once. It returns the requests admitted
// and the tokens they used.
func flowLoad(t *testing.T, k kuadrantClient, n int) (admitted, used int) {
	var mu sync.Mutex
	first := true
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				resp, err := k.call(t, "CheckRateLimit", tokenRequest("alice", "paid", 100))
				if err != nil {
					t.Error(err)
					return
				}
				if resp.OverallCode != ok {
					return
				}
				mu.Lock()
				usage := 60
				if first {
					usage, first = 150, false
				}
				admitted++
				used += usage
				mu.Unlock()
				runtime.Gosched()
				if _, err := k.call(t, "Report", tokenRequest("alice", "paid", uint32(usage), ReservedEntry, "100")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return admitted, used
}

// TestReserveBound checks the reservation mode's bound with 64 concurrent
// requests, memory and Redis: the tokens admitted stay within the budget
// plus the one overrun of an estimate (50), where Limitador's semantics
// admit every request in flight. It logs both figures, which
// docs/performance.md's token-budget section gives.
func TestReserveBound(t *testing.T) {
	const n, budget, overrun = 64, 1000, 50
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []Mode{ModeLimitador, ModeReserve} {
				s, err := New(tokenLimits, Options{Store: newStore(t), Clock: fixedClock(t0), CheckReport: CheckReport{Mode: mode, DefaultEstimate: 100}})
				if err != nil {
					t.Fatal(err)
				}
				admitted, used := overshootLoad(t, serveKuadrant(t, s), n)
				t.Logf("%s, %d concurrent, budget %d: admitted %d requests, %d tokens (overshoot %d)", mode, n, budget, admitted, used, max(used-budget, 0))
				s2, err := New(tokenLimits, Options{Store: newStore(t), Clock: fixedClock(t0), CheckReport: CheckReport{Mode: mode, DefaultEstimate: 100}})
				if err != nil {
					t.Fatal(err)
				}
				fa, fu := flowLoad(t, serveKuadrant(t, s2), n)
				t.Logf("%s, %d clients in a loop, budget %d: admitted %d requests, %d tokens (overshoot %d)", mode, n, budget, fa, fu, max(fu-budget, 0))
				if mode == ModeReserve && fu > budget+overrun {
					t.Errorf("reserve, clients in a loop: %d tokens admitted, want at most %d (budget + one overrun)", fu, budget+overrun)
				}
				switch mode {
				case ModeReserve:
					if used > budget+overrun {
						t.Errorf("reserve: %d tokens admitted, want at most %d (budget + one overrun)", used, budget+overrun)
					}
					if used < budget-100 {
						t.Errorf("reserve: %d tokens admitted, want the budget used to within one estimate", used)
					}
				default:
					if used != n*60+90 {
						t.Errorf("limitador: %d tokens admitted, want every request in flight (%d)", used, n*60+90)
					}
				}
			}
		})
	}
}

// TestReserveMaxInFlight checks that a report gives back unused hits only
// from a window that began at least MaxInFlight before it, so that a
// reservation made in an earlier window never frees the current one's.
func TestReserveMaxInFlight(t *testing.T) {
	var mu sync.Mutex
	now := t0
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	at := func(d time.Duration) { mu.Lock(); now = t0.Add(d); mu.Unlock() }
	s, err := New(tokenLimits, Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Clock: clock,
		CheckReport: CheckReport{Mode: ModeReserve, DefaultEstimate: 100, MaxInFlight: 15 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	k := serveKuadrant(t, s)
	steps := []struct {
		at     time.Duration
		method string
		req    *rlsv3.RateLimitRequest
		want   rlsv3.RateLimitResponse_Code
	}{
		{0, "CheckRateLimit", tokenRequest("alice", "paid", 900), ok}, // the window begins at t0
		// 5 s later the window may hold reservations of another: nothing given back.
		{5 * time.Second, "Report", tokenRequest("alice", "paid", 100, ReservedEntry, "900"), ok},
		{5 * time.Second, "CheckRateLimit", tokenRequest("alice", "paid", 101), over},
		// 20 s in, every reservation a report can settle is of this window.
		{20 * time.Second, "Report", tokenRequest("alice", "paid", 100, ReservedEntry, "900"), ok},
		{20 * time.Second, "CheckRateLimit", tokenRequest("alice", "paid", 900), ok},
	}
	for i, st := range steps {
		at(st.at)
		if got := k.code(t, st.method, st.req); got != st.want {
			t.Fatalf("step %d: %s(%v) at t0+%v = %v, want %v", i, st.method, st.req, st.at, got, st.want)
		}
	}
}

// TestReserveExpires checks that a reservation whose report never comes
// is held until its window ends, then gone, memory and Redis.
func TestReserveExpires(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			var mu sync.Mutex
			now := t0
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			s, err := New(tokenLimits, Options{Store: newStore(t), Clock: clock, CheckReport: CheckReport{Mode: ModeReserve}})
			if err != nil {
				t.Fatal(err)
			}
			k := serveKuadrant(t, s)
			for i, st := range []struct {
				at   time.Duration
				hits uint32
				want rlsv3.RateLimitResponse_Code
			}{
				{0, 1000, ok},
				{30 * time.Second, 1, over},
				{59 * time.Second, 1, over},
				{61 * time.Second, 1000, ok},
			} {
				mu.Lock()
				now = t0.Add(st.at)
				mu.Unlock()
				if got := k.code(t, "CheckRateLimit", tokenRequest("alice", "paid", st.hits)); got != st.want {
					t.Fatalf("step %d: check of %d at t0+%v = %v, want %v", i, st.hits, st.at, got, st.want)
				}
			}
		})
	}
}
