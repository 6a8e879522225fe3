package rls

import (
	"bytes"
	"context"
	"runtime"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/internal/benchscale"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
)

// BenchmarkServerCallScale is BenchmarkServerCall's decision (decode the
// request, decide, encode the response, on Register's path) with the memory
// store holding n live counters, one per user, the user of each call drawn
// uniformly among them, or among an active set of 10,000 spread over them.
// Its goal: CPU per decision within 1.5x from 10,000 to 10,000,000 live
// counters (benchscale.Counts; package limit/counter's
// BenchmarkMemoryStoreScale is the store's share alone). HTTP/2 and gRPC's
// transport, 20 to 25 us more per call on the same machine, are left out.
func BenchmarkServerCallScale(b *testing.B) {
	limits := []limitador.Limit{{Namespace: "shop", MaxValue: 1 << 30, Seconds: 3600, Variables: []string{"user"}, Name: "per user"}}
	const digits = 8
	for _, n := range benchscale.Counts(b) {
		if n > 99_999_999 {
			b.Fatalf("%s: %d counters do not fit %d digits", benchscale.Env, n, digits)
		}
		store := counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: 2 * n})
		s, err := New(limits, Options{Store: store, Clock: fixedClock(t0)})
		if err != nil {
			b.Fatalf("New: %v", err)
		}
		call := userRequest(b, digits)
		ctx := context.Background()
		for i := range n {
			if err := call.serve(ctx, s, i); err != nil {
				b.Fatal(err)
			}
		}
		if got := store.Len(); got != n {
			b.Fatalf("the store holds %d counters, want %d", got, n)
		}
		for _, d := range []struct {
			name string
			draw func() int
		}{
			{"uniform", xorshift(n, 1)},
			{"active10k", xorshift(min(n, 10_000), max(1, n/10_000))},
		} {
			b.Run("draw="+d.name+"/counters="+benchscale.Name(n), func(b *testing.B) {
				runtime.GC() // the filling's garbage, before the timer starts
				b.ReportAllocs()
				for b.Loop() {
					if err := call.serve(ctx, s, d.draw()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		runtime.KeepAlive(store)
	}
}

// scaleCall is an encoded request whose user value, "u" and the digits
// data[at:at+n], is rewritten for each call.
type scaleCall struct {
	data  []byte
	at, n int
}

// userRequest returns the encoded request of a user of the given number of
// digits, and where they start.
func userRequest(b *testing.B, digits int) scaleCall {
	zeros := bytes.Repeat([]byte{'0'}, digits)
	data, err := proto.Marshal(request("shop", 0, desc("user", "u"+string(zeros))))
	if err != nil {
		b.Fatal(err)
	}
	return scaleCall{data: data, at: bytes.Index(data, zeros), n: digits}
}

// serve serves the call of user i, which must fit the digits.
func (c *scaleCall) serve(ctx context.Context, s *Service, i int) error {
	digits := c.data[c.at : c.at+c.n]
	for j := len(digits) - 1; j >= 0; j-- {
		digits[j] = '0' + byte(i%10)
		i /= 10
	}
	return modelCall(ctx, s, mem.BufferSlice{mem.SliceBuffer(c.data)})
}

// xorshift draws uniformly among n values, each times step.
func xorshift(n, step int) func() int {
	rng := uint64(0x9e3779b97f4a7c15)
	return func() int {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		return int(rng%uint64(n)) * step
	}
}
