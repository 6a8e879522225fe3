package counter

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// t0 is a whole day (UTC), so windows of 1, 2, 4, 10, 60 s, an hour and a
// day start at it.
var t0 = time.Unix(1_699_920_000, 0)

type step struct {
	at   time.Duration // instant, as an offset from t0
	cost uint64
	want Decision
}

// run walks steps through p, threading the state, and checks every decision.
func run(t *testing.T, p Policy, steps []step) State {
	t.Helper()
	var s State
	for i, st := range steps {
		var d Decision
		s, d = p.Decide(s, t0.Add(st.at), st.cost)
		if diff := cmp.Diff(st.want, d); diff != "" {
			t.Errorf("step %d: Decide(t0+%v, cost=%d) mismatch (-want +got):\n%s", i, st.at, st.cost, diff)
		}
	}
	return s
}

const (
	ms = time.Millisecond
	s1 = time.Second
)

func TestFixedWindow(t *testing.T) {
	p := Policy{Algorithm: AlgorithmFixedWindow, Max: 3, Window: 10 * s1}
	run(t, p, []step{
		{0, 1, Decision{Allowed: true, Used: 1, Remaining: 2, ResetAfter: 10 * s1}},
		{1 * s1, 1, Decision{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 9 * s1}},
		{2 * s1, 1, Decision{Allowed: true, Used: 3, Remaining: 0, ResetAfter: 8 * s1}},
		{3 * s1, 1, Decision{Used: 4, ResetAfter: 7 * s1, RetryAfter: 7 * s1}},
		// A check on a full counter is allowed: only going over is over.
		{3 * s1, 0, Decision{Allowed: true, Used: 3, ResetAfter: 7 * s1}},
		{9999 * ms, 1, Decision{Used: 4, ResetAfter: 1 * ms, RetryAfter: 1 * ms}},
		{10 * s1, 0, Decision{Allowed: true, Used: 0, Remaining: 3, ResetAfter: 10 * s1}},
		{10 * s1, 2, Decision{Allowed: true, Used: 2, Remaining: 1, ResetAfter: 10 * s1}},
		// A stale instant from the previous window counts in the current one.
		// Durations count from the caller's instant, 5 s before the window.
		{5 * s1, 1, Decision{Allowed: true, Used: 3, Remaining: 0, ResetAfter: 15 * s1}},
		{5 * s1, 1, Decision{Used: 4, ResetAfter: 15 * s1, RetryAfter: 15 * s1}},
		// A cost above the capacity never fits: RetryAfter is the window.
		{25 * s1, 4, Decision{Used: 4, Remaining: 3, ResetAfter: 5 * s1, RetryAfter: 10 * s1}},
		{25 * s1, 3, Decision{Allowed: true, Used: 3, Remaining: 0, ResetAfter: 5 * s1}},
	})
}

func TestFixedWindowAlignedToEpoch(t *testing.T) {
	p := Policy{Max: 1, Window: time.Minute}
	// t0+30s is in the window [t0, t0+60s), whatever instant came first.
	run(t, p, []step{
		{30 * s1, 1, Decision{Allowed: true, Used: 1, ResetAfter: 30 * s1}},
		{59 * s1, 1, Decision{Used: 2, ResetAfter: 1 * s1, RetryAfter: 1 * s1}},
		{60 * s1, 1, Decision{Allowed: true, Used: 1, ResetAfter: 60 * s1}},
	})
}

// TestFixedWindowFromFirstHit checks limitador's fixed window: a window
// starts at the first hit counted in it and lasts Window from there.
func TestFixedWindowFromFirstHit(t *testing.T) {
	p := Policy{Max: 2, Window: time.Minute, FirstHit: true}
	run(t, p, []step{
		// A check on a fresh counter starts nothing.
		{20 * s1, 0, Decision{Allowed: true, Remaining: 2, ResetAfter: 60 * s1}},
		{30 * s1, 1, Decision{Allowed: true, Used: 1, Remaining: 1, ResetAfter: 60 * s1}},
		// The epoch-aligned window would have ended at t0+60s.
		{61 * s1, 1, Decision{Allowed: true, Used: 2, Remaining: 0, ResetAfter: 29 * s1}},
		{89 * s1, 1, Decision{Used: 3, ResetAfter: 1 * s1, RetryAfter: 1 * s1}},
		// A stale instant counts in the current window.
		{10 * s1, 0, Decision{Allowed: true, Used: 2, ResetAfter: 80 * s1}},
		{90 * s1, 1, Decision{Allowed: true, Used: 1, Remaining: 1, ResetAfter: 60 * s1}},
		{149 * s1, 1, Decision{Allowed: true, Used: 2, Remaining: 0, ResetAfter: 1 * s1}},
		{150 * s1, 1, Decision{Allowed: true, Used: 1, Remaining: 1, ResetAfter: 60 * s1}},
	})
}

func TestZeroMaxAdmitsNothing(t *testing.T) {
	for _, alg := range []Algorithm{AlgorithmFixedWindow, AlgorithmSlidingWindow, AlgorithmTokenBucket, AlgorithmGCRA} {
		t.Run(alg.String(), func(t *testing.T) {
			p := Policy{Algorithm: alg, Max: 0, Window: s1}
			for _, cost := range []uint64{1, 5} {
				_, d := p.Decide(State{}, t0, cost)
				if d.Allowed || d.Remaining != 0 || d.RetryAfter != s1 {
					t.Errorf("Decide(max=0, cost=%d) = %+v, want rejected, Remaining 0, RetryAfter 1s", cost, d)
				}
			}
			// A check is not over: the counter holds nothing more than 0.
			if _, d := p.Decide(State{}, t0, 0); !d.Allowed || d.Remaining != 0 || d.RetryAfter != 0 {
				t.Errorf("Decide(max=0, cost=0) = %+v, want allowed, Remaining 0", d)
			}
		})
	}
}

func TestSlidingWindowProportional(t *testing.T) {
	p := Policy{Algorithm: AlgorithmSlidingWindow, Max: 10, Window: 10 * s1}
	s := run(t, p, []step{
		{0, 5, Decision{Allowed: true, Used: 5, Remaining: 5, ResetAfter: 20 * s1}},
		{9 * s1, 5, Decision{Allowed: true, Used: 10, Remaining: 0, ResetAfter: 11 * s1}},
		// New window: the previous 10 hits still weigh fully at its start.
		{10 * s1, 1, Decision{Used: 11, Remaining: 0, ResetAfter: 10 * s1, RetryAfter: 1 * s1}},
		// One second in, they weigh 9.
		{11 * s1, 1, Decision{Allowed: true, Used: 10, Remaining: 0, ResetAfter: 19 * s1}},
		{15 * s1, 3, Decision{Allowed: true, Used: 9, Remaining: 1, ResetAfter: 15 * s1}},
		{16 * s1, 3, Decision{Used: 11, Remaining: 2, ResetAfter: 14 * s1, RetryAfter: 1 * s1}},
		// A stale instant counts as the start of the current window, where
		// the previous window weighs most: stricter, never looser. The
		// durations count from the stale instant, 9 s earlier.
		{1 * s1, 1, Decision{Used: 15, Remaining: 0, ResetAfter: 29 * s1, RetryAfter: 14 * s1}},
		// Current hits 4 > 10-7: wait for the next window, then for the
		// previous 4 to decay to 3 (2.5 s into it).
		{16 * s1, 7, Decision{Used: 15, Remaining: 2, ResetAfter: 14 * s1, RetryAfter: 6500 * ms}},
		// Two windows later nothing is left.
		{31 * s1, 1, Decision{Allowed: true, Used: 1, Remaining: 9, ResetAfter: 19 * s1}},
	})
	if want := (State{Time: t0.Add(30 * s1).UnixMicro(), Count: 1}); s != want {
		t.Errorf("final state = %+v, want %+v", s, want)
	}
}

func TestSlidingWindowWeighted(t *testing.T) {
	// max 4 per 2 s: pingap's budget is 4/2 = 2 per second and the
	// estimate (prev*0.5 + curr*0.5)/2, so prev+curr may reach 8.
	p := Policy{Algorithm: AlgorithmSlidingWindow, Max: 4, Window: 2 * s1, Weighted: true, Weight: 50}
	run(t, p, []step{
		{0, 4, Decision{Allowed: true, Used: 1, Remaining: 4, ResetAfter: 4 * s1}},
		{0, 4, Decision{Allowed: true, Used: 2, Remaining: 0, ResetAfter: 4 * s1}},
		{1 * s1, 1, Decision{Used: 2.25, Remaining: 0, ResetAfter: 3 * s1, RetryAfter: 3 * s1}},
		{2 * s1, 1, Decision{Used: 2.25, Remaining: 0, ResetAfter: 2 * s1, RetryAfter: 2 * s1}},
		{4 * s1, 4, Decision{Allowed: true, Used: 1, Remaining: 4, ResetAfter: 4 * s1}},
	})

	t.Run("interval floored at 1s", func(t *testing.T) {
		// 10 per 500 ms with weight 100: budget 10/max(0.5, 1) = 10 per
		// second against curr/0.5, so only 5 hits fit in a window.
		p := Policy{Algorithm: AlgorithmSlidingWindow, Max: 10, Window: 500 * ms, Weighted: true, Weight: 100}
		run(t, p, []step{
			{0, 5, Decision{Allowed: true, Used: 10, Remaining: 0, ResetAfter: 1000 * ms}},
			{100 * ms, 1, Decision{Used: 12, Remaining: 0, ResetAfter: 900 * ms, RetryAfter: 400 * ms}},
			{500 * ms, 5, Decision{Allowed: true, Used: 10, Remaining: 0, ResetAfter: 1000 * ms}},
		})
	})

	t.Run("weight 0 uses the previous window alone", func(t *testing.T) {
		p := Policy{Algorithm: AlgorithmSlidingWindow, Max: 4, Window: 2 * s1, Weighted: true, Weight: 0}
		run(t, p, []step{
			{0, 4, Decision{Allowed: true, Used: 0, Remaining: 0, ResetAfter: 4 * s1}},
			{1 * s1, 4, Decision{Allowed: true, Used: 0, Remaining: 0, ResetAfter: 3 * s1}},
			{2 * s1, 1, Decision{Used: 4, Remaining: 0, ResetAfter: 2 * s1, RetryAfter: 2 * s1}},
			{4 * s1, 1, Decision{Allowed: true, Used: 0, Remaining: 3, ResetAfter: 4 * s1}},
		})
	})
}

func TestTokenBucket(t *testing.T) {
	// Burst 4, one token per second.
	p := Policy{Algorithm: AlgorithmTokenBucket, Max: 4, Window: 4 * s1}
	s := run(t, p, []step{
		{0, 4, Decision{Allowed: true, Used: 4, Remaining: 0, ResetAfter: 4 * s1}},
		{500 * ms, 1, Decision{Used: 5, Remaining: 0, ResetAfter: 3500 * ms, RetryAfter: 500 * ms}},
		{1 * s1, 1, Decision{Allowed: true, Used: 4, Remaining: 0, ResetAfter: 4 * s1}},
		// A stale instant credits nothing; durations count from it.
		{0, 1, Decision{Used: 5, Remaining: 0, ResetAfter: 5 * s1, RetryAfter: 2 * s1}},
		// 2.5 s later two whole tokens are back; the half stays credited.
		{3500 * ms, 2, Decision{Allowed: true, Used: 4, Remaining: 0, ResetAfter: 3500 * ms}},
		{4 * s1, 1, Decision{Allowed: true, Used: 4, Remaining: 0, ResetAfter: 4 * s1}},
		{100 * s1, 0, Decision{Allowed: true, Used: 0, Remaining: 4}},
		{100 * s1, 5, Decision{Used: 5, Remaining: 4, RetryAfter: 4 * s1}},
	})
	// The check and the rejection at t0+100s leave the state as it was.
	if want := (State{Time: t0.Add(4 * s1).UnixMicro(), Count: 4}); s != want {
		t.Errorf("final state = %+v, want %+v", s, want)
	}
}

func TestGCRA(t *testing.T) {
	// Burst 4, one hit per second.
	p := Policy{Algorithm: AlgorithmGCRA, Max: 4, Window: 4 * s1}
	s := run(t, p, []step{
		{0, 4, Decision{Allowed: true, Used: 4, Remaining: 0, ResetAfter: 4 * s1}},
		{500 * ms, 1, Decision{Used: 4.5, Remaining: 0, ResetAfter: 3500 * ms, RetryAfter: 500 * ms}},
		{1 * s1, 1, Decision{Allowed: true, Used: 4, Remaining: 0, ResetAfter: 4 * s1}},
		// A stale instant only makes the check stricter.
		{0, 1, Decision{Used: 6, Remaining: 0, ResetAfter: 5 * s1, RetryAfter: 2 * s1}},
		{3500 * ms, 2, Decision{Allowed: true, Used: 3.5, Remaining: 0, ResetAfter: 3500 * ms}},
		{100 * s1, 0, Decision{Allowed: true, Used: 0, Remaining: 4}},
		{100 * s1, 5, Decision{Used: 5, Remaining: 4, RetryAfter: 4 * s1}},
	})
	if want := (State{Time: t0.Add(7 * s1).UnixMicro()}); s != want {
		t.Errorf("final state = %+v, want %+v", s, want)
	}
}

func TestPolicyValidate(t *testing.T) {
	tests := []struct {
		p    Policy
		want string
	}{
		{Policy{Max: 1, Window: s1}, ""},
		{Policy{Algorithm: AlgorithmSlidingWindow, Max: MaxPolicyValue, Window: MaxWindow, Weighted: true, Weight: 100}, ""},
		{Policy{}, "counter: invalid policy: window 0s is shorter than 1µs"},
		{Policy{Algorithm: 9, Max: MaxPolicyValue + 1, Window: MaxWindow + 1, Weighted: true, Weight: 101},
			"counter: invalid policy: unknown algorithm 9; max 4294967296 exceeds 4294967295; window 1193046h28m15.000000001s exceeds 1193046h28m15s; weight 101 exceeds 100"},
	}
	for _, tc := range tests {
		err := tc.p.Validate()
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v.Validate() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestAlgorithmNames(t *testing.T) {
	for _, a := range []Algorithm{AlgorithmFixedWindow, AlgorithmSlidingWindow, AlgorithmTokenBucket, AlgorithmGCRA} {
		text, err := a.MarshalText()
		if err != nil {
			t.Fatalf("%v.MarshalText: %v", a, err)
		}
		var back Algorithm
		if err := back.UnmarshalText(text); err != nil || back != a {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", text, back, err, a)
		}
	}
	if a, err := ParseAlgorithm(""); err != nil || a != AlgorithmFixedWindow {
		t.Errorf(`ParseAlgorithm("") = %v, %v; want fixed_window`, a, err)
	}
	if _, err := ParseAlgorithm("leaky_bucket"); err == nil {
		t.Error(`ParseAlgorithm("leaky_bucket") = nil error, want an error`)
	}
	if s := Algorithm(9).String(); s != "Algorithm(9)" {
		t.Errorf("Algorithm(9).String() = %q", s)
	}
}

// TestCheckOverOnlyWhenOver: a check (cost 0) on a full counter is
// allowed, and is over only when the counter holds more than its capacity,
// as after the limit was lowered (GCRA's TAT runs past a shorter window's
// bound); the token bucket never lacks more than
// its capacity, so a check on it is always allowed.
func TestCheckOverOnlyWhenOver(t *testing.T) {
	for _, alg := range []Algorithm{AlgorithmFixedWindow, AlgorithmSlidingWindow, AlgorithmTokenBucket, AlgorithmGCRA} {
		t.Run(alg.String(), func(t *testing.T) {
			high := Policy{Algorithm: alg, Max: 5, Window: 10 * s1}
			var s State
			for range 5 {
				s, _ = high.Decide(s, t0, 1)
			}
			if _, d := high.Decide(s, t0, 0); !d.Allowed || d.Remaining != 0 {
				t.Errorf("check on a full counter = %+v, want allowed with none remaining", d)
			}
			if _, d := high.Decide(s, t0, 1); d.Allowed {
				t.Errorf("hit on a full counter = %+v, want rejected", d)
			}
			low := high // a lower rate on the same key: a lower max, a shorter window
			low.Max, low.Window = 3, 5*s1
			_, d := low.Decide(s, t0, 0)
			if want := alg == AlgorithmTokenBucket; d.Allowed != want || d.Remaining != 0 {
				t.Errorf("check on a counter over a lowered max = %+v, want allowed=%v with none remaining", d, want)
			}
			if !d.Allowed && d.RetryAfter <= 0 {
				t.Errorf("rejected check = %+v, want a RetryAfter", d)
			}
		})
	}
}
