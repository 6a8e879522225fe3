package counter

import (
	"math/rand/v2"
	"testing"
	"time"
)

var allAlgorithms = []Policy{
	{Algorithm: AlgorithmFixedWindow, Max: 7, Window: 3 * s1},
	{Algorithm: AlgorithmSlidingWindow, Max: 7, Window: 3 * s1},
	{Algorithm: AlgorithmSlidingWindow, Max: 7, Window: 3 * s1, Weighted: true, Weight: 50},
	{Algorithm: AlgorithmSlidingWindow, Max: 7, Window: 3 * s1, Weighted: true, Weight: 100},
	{Algorithm: AlgorithmTokenBucket, Max: 7, Window: 3 * s1},
	{Algorithm: AlgorithmGCRA, Max: 7, Window: 3 * s1},
}

func policyName(p Policy) string {
	if p.Weighted {
		return p.Algorithm.String() + "/weighted"
	}
	return p.Algorithm.String()
}

// randomWalk returns instants that mostly advance and sometimes step back.
func randomWalk(r *rand.Rand, n int) []time.Time {
	out := make([]time.Time, n)
	cur := t0
	for i := range out {
		cur = cur.Add(time.Duration(r.IntN(400_000)) * time.Microsecond)
		at := cur
		if r.IntN(4) == 0 {
			at = cur.Add(-time.Duration(r.IntN(5_000_000)) * time.Microsecond)
		}
		out[i] = at
	}
	return out
}

func TestStateNeverMovesBackwards(t *testing.T) {
	for _, p := range allAlgorithms {
		t.Run(policyName(p), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var s State
			for i, now := range randomWalk(r, 20_000) {
				next, d := p.Decide(s, now, uint64(r.IntN(3)))
				if next.Time < s.Time {
					t.Fatalf("step %d: Decide(t=%d) moved Time back from %d to %d", i, now.UnixMicro(), s.Time, next.Time)
				}
				if d.Allowed && d.RetryAfter != 0 || !d.Allowed && d.RetryAfter <= 0 {
					t.Fatalf("step %d: Decide = %+v: RetryAfter must be 0 exactly when allowed", i, d)
				}
				if d.ResetAfter < 0 {
					t.Fatalf("step %d: Decide = %+v: negative ResetAfter", i, d)
				}
				s = next
			}
		})
	}
}

// TestRetryAfter checks that a rejected request is admitted after RetryAfter
// when nothing else happens, and (for the exact algorithms) not a
// microsecond earlier.
func TestRetryAfter(t *testing.T) {
	for _, p := range allAlgorithms {
		t.Run(policyName(p), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			var s State
			checked := 0
			for i, now := range randomWalk(r, 20_000) {
				cost := uint64(1 + r.IntN(3))
				next, d := p.Decide(s, now, cost)
				if !d.Allowed && d.RetryAfter < p.Window {
					later := now.Add(d.RetryAfter)
					if _, d2 := p.Decide(s, later, cost); !d2.Allowed {
						t.Fatalf("step %d: rejected at %d with RetryAfter %v, still rejected then: %+v", i, now.UnixMicro(), d.RetryAfter, d2)
					}
					exact := p.Algorithm != AlgorithmSlidingWindow
					if _, d3 := p.Decide(s, later.Add(-time.Microsecond), cost); exact && d3.Allowed && d.RetryAfter > time.Microsecond {
						t.Fatalf("step %d: rejected at %d with RetryAfter %v, but admitted 1µs earlier", i, now.UnixMicro(), d.RetryAfter)
					}
					checked++
				}
				s = next
			}
			if checked < 100 {
				t.Fatalf("only %d rejections checked; the walk is too gentle", checked)
			}
		})
	}
}

// TestStaleTimestampsMintNothing feeds alternating current and stale
// instants, the pattern that makes golang.org/x/time/rate admit everything
// (internal/benchcmp shows it admitting 100,000 of 100,000).
func TestStaleTimestampsMintNothing(t *testing.T) {
	tests := []struct {
		name string
		p    Policy
		want int
	}{
		// One hit at t0, then the refill of the one second up to t0+1s; the
		// bound burst + rate x elapsed is 20.
		{"token bucket", Policy{Algorithm: AlgorithmTokenBucket, Max: 10, Window: s1}, 11},
		{"gcra", Policy{Algorithm: AlgorithmGCRA, Max: 10, Window: s1}, 11},
		// One hit in t0's window, then 10 in the next; the stale instants
		// count in the newer window.
		{"fixed window", Policy{Algorithm: AlgorithmFixedWindow, Max: 10, Window: s1}, 11},
		// At the start of the second window the first one still weighs in
		// fully: 1 + 9.
		{"sliding window", Policy{Algorithm: AlgorithmSlidingWindow, Max: 10, Window: s1}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s State
			admitted := 0
			for i := range 100_000 {
				now := t0
				if i%2 == 1 {
					now = t0.Add(s1)
				}
				var d Decision
				s, d = tc.p.Decide(s, now, 1)
				if d.Allowed {
					admitted++
				}
			}
			if admitted != tc.want {
				t.Errorf("admitted %d of 100,000, want %d", admitted, tc.want)
			}
		})
	}
}

// TestTokenBucketBound checks burst + rate x elapsed over random traffic.
func TestTokenBucketBound(t *testing.T) {
	for _, alg := range []Algorithm{AlgorithmTokenBucket, AlgorithmGCRA} {
		t.Run(alg.String(), func(t *testing.T) {
			p := Policy{Algorithm: alg, Max: 7, Window: 3 * s1}
			r := rand.New(rand.NewPCG(5, 6))
			var s State
			admitted := uint64(0)
			first, last := int64(-1), int64(0)
			for i, now := range randomWalk(r, 50_000) {
				cost := uint64(1 + r.IntN(2))
				var d Decision
				s, d = p.Decide(s, now, cost)
				us := now.UnixMicro()
				if first < 0 {
					first = us
				}
				last = max(last, us)
				if d.Allowed {
					admitted += cost
				}
				// admitted <= burst + max*elapsed/window, in integers.
				if elapsed := uint64(last - first); admitted*3_000_000 > 7*3_000_000+7*elapsed {
					t.Fatalf("step %d: admitted %d after %dµs, more than 7 + 7/3s", i, admitted, elapsed)
				}
			}
		})
	}
}
