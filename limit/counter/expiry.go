package counter

// freshFrom returns the instant (Unix µs) from which s, written by an
// update under p, decides as a fresh counter does under every policy that
// can read it, so that a store may forget it then: the policies of p's
// algorithm and window with any Max, sliding-window weight or fixed-window
// start (the evaluators' counter keys name the algorithm and the window,
// never the maximum, so a reload that changes Max keeps counting on the
// same counters).
//
//   - fixed window: the end of its window, s.Time + w;
//   - sliding window: the end of the window after it, which reads s.Count
//     as its previous window's hits;
//   - token bucket: s.Time + w + s.Count - 1. Under a Max of m the bucket
//     lacks c = min(s.Count, m) tokens and credits one every ceil(w/m) µs,
//     so it is full again after c*ceil(w/m) <= c*ceil(w/c) <= w + c - 1
//     µs, whatever m; under the Max that wrote s it is often much sooner
//     (s.Count refill intervals), which is what Decision.ResetAfter says;
//   - GCRA: its TAT, s.Time, whatever the interval Max gives.
func (p *Policy) freshFrom(s State) int64 {
	w := windowMicros(p.Window)
	switch p.Algorithm {
	case AlgorithmSlidingWindow:
		return s.Time + 2*w
	case AlgorithmTokenBucket:
		if s.Count == 0 {
			return s.Time
		}
		return s.Time + w + int64(min(s.Count, MaxPolicyValue)) - 1
	case AlgorithmGCRA:
		return s.Time
	}
	return s.Time + w
}
