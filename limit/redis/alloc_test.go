// The race detector makes values escape that do not otherwise: the counts
// below hold for the ordinary build only.

//go:build !race

package redis

import (
	"context"
	"fmt"
	"testing"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// maxAllocsAlone bounds the allocations of an Update sent at once, alone:
// the command and its reply, and go-redis's check of the connection it
// takes from its pool (three). The arguments it writes allocate nothing.
const maxAllocsAlone = 5

// TestUpdateAllocations counts the allocations of an Update of 3 counters
// that no other Update shares a round trip with.
func TestUpdateAllocations(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{})
	updates := batchOf("allocs", 3)
	ds := make([]counter.Decision, len(updates))
	ctx := context.Background()
	update := func() {
		if err := s.Update(ctx, t0, updates, ds); err != nil {
			t.Fatal(err)
		}
	}
	update() // loads the script, fills the pools
	if got := testing.AllocsPerRun(50, update); got > maxAllocsAlone {
		t.Errorf("an Update alone allocates %v times, want at most %d", got, maxAllocsAlone)
	}
}

// maxAllocsPipeline bounds the allocations of a pipeline of requests that
// share one script call, whatever their number: the command and its
// reply, and in go-redis the list of the pipeline's commands, its two
// checks of the pipeline's error and its check of the connection (three).
const maxAllocsPipeline = 8

// TestPipelineAllocations counts the allocations of a sender's pipeline of
// 16 queued requests, sent as one script call.
func TestPipelineAllocations(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{})
	const n = 16
	batches := make([]*batch, n)
	calls := make([]*call, n)
	for i := range batches {
		batches[i] = s.prepare(context.Background(), t0.UnixMicro(), batchOf(fmt.Sprint("pipe", i), 2))
		calls[i] = &batches[i].call
	}
	sd := &sender{pipe: s.client.Pipeline()}
	send := func() {
		s.pipe.exec(calls, sd)
		for _, c := range calls {
			<-c.done
			if c.err != nil {
				t.Fatal(c.err)
			}
		}
	}
	send() // loads the script, grows the sender's scratch
	if got := testing.AllocsPerRun(20, send); got > maxAllocsPipeline {
		t.Errorf("a pipeline of %d requests allocates %v times, want at most %d", n, got, maxAllocsPipeline)
	}
}
