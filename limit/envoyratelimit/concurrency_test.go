package envoyratelimit

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestEvaluateExactUnderConcurrency: 8 goroutines x 500 requests, each with
// a shared descriptor (limit 1,000 per hour) and one of its own, admit
// exactly 1,000, and no rejected request moves its own counter.
func TestEvaluateExactUnderConcurrency(t *testing.T) {
	cfg := mustLoad(t, `domain: d
descriptors:
  - key: shared
    rate_limit: {unit: hour, requests_per_unit: 1000}
  - key: own
    rate_limit: {unit: hour, requests_per_unit: 100000}
`)
	ev, err := NewEvaluator(Options{Store: counter.NewMemoryStore(counter.MemoryOptions{})})
	if err != nil {
		t.Fatal(err)
	}
	var admitted atomic.Int64
	perG := make([]int, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			own := desc("own", string(rune('a'+g)))
			for range 500 {
				r := req(desc("shared", "x"), own)
				resp, err := evaluate(ev, cfg, t0, &r)
				if err != nil {
					t.Error(err)
					return
				}
				if resp.OverallCode == CodeOK {
					admitted.Add(1)
					perG[g]++
				}
			}
		})
	}
	wg.Wait()
	if got := admitted.Load(); got != 1000 {
		t.Errorf("admitted %d, want exactly 1000", got)
	}
	for g, n := range perG {
		r := req(Descriptor{Entries: []Entry{{Key: "own", Value: string(rune('a' + g))}}, HitsAddend: u64(0)})
		resp, err := evaluate(ev, cfg, t0, &r)
		if err != nil {
			t.Fatal(err)
		}
		if want := uint32(100000 - n); resp.Statuses[0].LimitRemaining != want {
			t.Errorf("goroutine %d: own remaining %d, want %d (only admitted requests counted)", g, resp.Statuses[0].LimitRemaining, want)
		}
	}
}
