package counter

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Algorithm names the counting algorithm of a limit. The zero value is
// AlgorithmFixedWindow. In a limits file it is written as its String form.
type Algorithm uint8

const (
	// AlgorithmFixedWindow counts hits in windows aligned to the Unix epoch,
	// as Envoy's reference rate-limit service does, or starting at each
	// window's first hit, as limitador does (Policy.FirstHit). It is the
	// default.
	AlgorithmFixedWindow Algorithm = iota
	// AlgorithmSlidingWindow estimates the hits of the last window from the
	// current and the previous fixed window (see SlidingWindow).
	AlgorithmSlidingWindow
	// AlgorithmTokenBucket refills max tokens per window into a bucket that
	// holds at most max tokens (see TokenBucket).
	AlgorithmTokenBucket
	// AlgorithmGCRA is the generic cell rate algorithm: a token bucket kept
	// as one timestamp (see GCRA).
	AlgorithmGCRA
)

var algorithmNames = [...]string{
	AlgorithmFixedWindow:   "fixed_window",
	AlgorithmSlidingWindow: "sliding_window",
	AlgorithmTokenBucket:   "token_bucket",
	AlgorithmGCRA:          "gcra",
}

// String returns the name used in limits files: fixed_window, sliding_window,
// token_bucket or gcra.
func (a Algorithm) String() string {
	if int(a) < len(algorithmNames) {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// Valid reports whether a is one of the algorithms above.
func (a Algorithm) Valid() bool { return int(a) < len(algorithmNames) }

// ParseAlgorithm returns the algorithm named s. The empty string is the
// default, AlgorithmFixedWindow.
func ParseAlgorithm(s string) (Algorithm, error) {
	if s == "" {
		return AlgorithmFixedWindow, nil
	}
	for i, name := range algorithmNames {
		if s == name {
			return Algorithm(i), nil
		}
	}
	return 0, fmt.Errorf("counter: unknown algorithm %q (want fixed_window, sliding_window, token_bucket or gcra)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (a Algorithm) MarshalText() ([]byte, error) {
	if int(a) >= len(algorithmNames) {
		return nil, fmt.Errorf("counter: unknown algorithm %d", uint8(a))
	}
	return []byte(algorithmNames[a]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Algorithm) UnmarshalText(text []byte) error {
	v, err := ParseAlgorithm(string(text))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// MaxPolicyValue is the largest Max a Policy accepts. Every count and time the
// algorithms handle stays below 2^53, so a Lua script working in IEEE doubles
// (as Redis scripts do) reproduces the arithmetic exactly.
const MaxPolicyValue = 1<<32 - 1

// MaxWindow is the longest window a Policy accepts (2^32-1 seconds, about 136
// years).
const MaxWindow = (1<<32 - 1) * time.Second

// Policy is an algorithm with its parameters: everything a store needs to
// decide on one counter. The zero value is a fixed window that admits
// nothing. A Policy is a plain value, safe to copy and to share.
type Policy struct {
	// Algorithm selects the counting algorithm.
	Algorithm Algorithm
	// Max is the capacity: hits per window (fixed and sliding window), the
	// burst (token bucket, GCRA). At most MaxPolicyValue.
	Max uint64
	// Window is the period of Max. It is used at microsecond resolution and
	// must be at least one microsecond and at most MaxWindow.
	Window time.Duration
	// Weighted switches the sliding window from the proportional estimate to
	// pingap's fixed weight; see SlidingWindow. Other algorithms ignore it.
	Weighted bool
	// Weight is the sliding window's weight of the current window in percent
	// (0-100) when Weighted is set.
	Weight uint8
	// FirstHit starts each fixed window at the first hit counted in it, as
	// limitador counts, instead of at a multiple of Window since the Unix
	// epoch, as Envoy's reference service counts. Other algorithms ignore
	// it.
	FirstHit bool
}

// Validate reports whether p can be used, naming every problem.
func (p Policy) Validate() error {
	if probs := p.problems(); len(probs) > 0 {
		return fmt.Errorf("counter: invalid policy: %s", strings.Join(probs, "; "))
	}
	return nil
}

func (p Policy) problems() []string {
	var probs []string
	if int(p.Algorithm) >= len(algorithmNames) {
		probs = append(probs, fmt.Sprintf("unknown algorithm %d", uint8(p.Algorithm)))
	}
	if p.Max > MaxPolicyValue {
		probs = append(probs, fmt.Sprintf("max %d exceeds %d", p.Max, uint64(MaxPolicyValue)))
	}
	if p.Window < time.Microsecond {
		probs = append(probs, fmt.Sprintf("window %v is shorter than 1µs", p.Window))
	}
	if p.Window > MaxWindow {
		probs = append(probs, fmt.Sprintf("window %v exceeds %v", p.Window, MaxWindow))
	}
	if p.Weighted && p.Weight > 100 {
		probs = append(probs, fmt.Sprintf("weight %d exceeds 100", p.Weight))
	}
	return probs
}

// Decide applies cost hits at now to state s under p and returns the new
// state and the decision. It is pure: the same inputs give the same outputs.
// A cost of 0 is a check: it consumes nothing and is allowed unless the
// counter already holds more than its capacity, which it can only after
// its policy changed (a lowered Max, a shorter window): a full counter is
// not over, only going over is (as Envoy's reference rate-limit service and
// limitador decide a check). A rejected hit consumes nothing. Unless hits are consumed,
// the returned state is s itself, so a store writes state only when the
// decision is allowed with a cost. An invalid policy (see Validate) is
// clamped to the nearest valid one.
func (p Policy) Decide(s State, now time.Time, cost uint64) (State, Decision) {
	var d Decision
	p.step(&s, now.UnixMicro(), cost, &d)
	return s, d
}

// step is Decide at nowUs (Unix microseconds) in place: it writes the
// decision to *d and changes *s only when hits are consumed, that is when
// d.Allowed and cost > 0.
func (p *Policy) step(s *State, nowUs int64, cost uint64, d *Decision) {
	w, max := windowMicros(p.Window), clampMax(p.Max)
	switch p.Algorithm {
	case AlgorithmSlidingWindow:
		SlidingWindow{Max: p.Max, Window: p.Window, Weighted: p.Weighted, Weight: p.Weight}.step(s, nowUs, cost, w, max, d)
	case AlgorithmTokenBucket:
		tokenBucketStep(s, nowUs, cost, w, max, refillInterval(max, w), d)
	case AlgorithmGCRA:
		gcraStep(s, nowUs, cost, w, max, refillInterval(max, w), d)
	default:
		fixedWindowStep(s, nowUs, cost, w, max, p.FirstHit, d)
	}
}

// State is the stored state of one counter, the same small value for every
// algorithm so that a store keeps one type. Times are Unix microseconds. The
// zero value is a counter that has seen nothing.
//
// Meaning per algorithm:
//   - fixed window: Time is the start of the current window, Count its hits;
//   - sliding window: Time is the start of the current window, Count its hits,
//     Prev the hits of the window before it;
//   - token bucket: Count is the number of tokens taken from a full bucket and
//     Time the instant up to which refills have been credited;
//   - GCRA: Time is the theoretical arrival time (TAT).
type State struct {
	// Time is an instant in Unix microseconds (see above).
	Time int64
	// Count is the current window's hits, or the tokens taken.
	Count uint64
	// Prev is the previous window's hits (sliding window only).
	Prev uint64
}

// Decision is the outcome of applying hits to a counter.
type Decision struct {
	// Allowed reports whether the hits were admitted (for a check: whether
	// the counter is within its capacity, see Policy.Decide).
	Allowed bool
	// PartAdmitted is set by a store that decided the batch in parts, all
	// or nothing within each part only (limit/redis with
	// Options.SplitHashTags: one part per Redis Cluster hash tag), on every
	// update of a part it admitted: that update's cost was consumed even if
	// another part was rejected. A store that decides a batch whole never
	// sets it; there an update is consumed exactly when every update of the
	// batch is allowed (see Store).
	PartAdmitted bool
	// Used is what the algorithm compared with its capacity, including this
	// request's cost whether or not it was admitted: the window's hits (fixed
	// window), the estimate (sliding window; per second with pingap's
	// weight), the tokens taken (token bucket, GCRA).
	Used float64
	// Remaining is how many more hits would be admitted right after this
	// decision.
	Remaining uint64
	// ResetAfter is how long until the counter is back to its initial state
	// if nothing else happens, under this policy. Under another Max (a
	// reload keeps a limit's counter) its state may matter longer, so a
	// store keeps it as long as Store says, not only until ResetAfter.
	ResetAfter time.Duration
	// RetryAfter is zero when allowed. Otherwise it is how long until the
	// same request would be admitted if nothing else happens; when it never
	// can be (its cost exceeds the capacity) it is the policy's window.
	RetryAfter time.Duration
}

// windowMicros returns d in whole microseconds, clamped to [1µs, MaxWindow].
func windowMicros(d time.Duration) int64 {
	if d > MaxWindow {
		d = MaxWindow
	}
	us := d.Microseconds()
	if us < 1 {
		return 1
	}
	return us
}

// skew adds to d's durations the time by which the caller's instant (nowUs)
// lies before the instant t the algorithm decided at, so that they count
// from the caller's instant. When the hits never fit, RetryAfter (the window)
// stays.
func skew(d *Decision, t, nowUs int64, never bool) {
	if skew := t - nowUs; skew > 0 {
		if d.ResetAfter > 0 {
			d.ResetAfter += micros(skew)
		}
		if d.RetryAfter > 0 && !never {
			d.RetryAfter += micros(skew)
		}
	}
}

// clampMax bounds a policy max to MaxPolicyValue.
func clampMax(m uint64) uint64 {
	if m > MaxPolicyValue {
		return MaxPolicyValue
	}
	return m
}

// micros converts a duration in microseconds to a time.Duration.
func micros(us int64) time.Duration {
	if us <= 0 {
		return 0
	}
	return time.Duration(us) * time.Microsecond
}

// floorDiv returns a/b rounded towards negative infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDiv returns a/b rounded up, for a >= 0 and b > 0.
func ceilDiv(a, b int64) int64 {
	return (a + b - 1) / b
}

// need returns the units an acquisition must fit: n, or 1 for none
// (InFlight).
func need(cost uint64) uint64 {
	if cost == 0 {
		return 1
	}
	return cost
}

// sub returns a-b, or 0 when b >= a.
func sub(a, b uint64) uint64 {
	if b >= a {
		return 0
	}
	return a - b
}

// addSat returns a+b, saturating at the largest uint64.
func addSat(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}
