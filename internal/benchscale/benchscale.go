// Package benchscale holds what rlpkit's scale benchmarks share: the
// counts of live counters they run at, which RLPKIT_BENCH_COUNTERS sets
// (comma-separated; default 10000,1000000,10000000), and the names of their
// sub-benchmarks.
package benchscale

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// Env is the environment variable that sets the counts.
const Env = "RLPKIT_BENCH_COUNTERS"

// Counts returns the live counter counts to run: Env's, or 10,000,
// 1,000,000 and 10,000,000. A count that is not a positive integer fails
// tb, naming it.
func Counts(tb testing.TB) []int {
	tb.Helper()
	spec := os.Getenv(Env)
	if spec == "" {
		return []int{10_000, 1_000_000, 10_000_000}
	}
	var out []int
	for f := range strings.SplitSeq(spec, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("%s=%q: %q is not a positive count", Env, spec, f)
		}
		out = append(out, n)
	}
	return out
}

// Name writes n as a sub-benchmark's name does: 10k, 1M, or the digits.
func Name(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000 && n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	}
	return strconv.Itoa(n)
}
