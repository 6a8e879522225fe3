package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// countingClock is a fixed clock that counts its readings.
type countingClock struct {
	mu    sync.Mutex
	now   time.Time
	reads int
}

func (c *countingClock) read() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads++
	return c.now
}

// TestMemoryLinear: remembering n writes costs a bounded number of steps each, however many
// are remembered (the clock is read once a write), and pruning forgets only the old ones.
func TestMemoryLinear(t *testing.T) {
	clock := &countingClock{now: time.Unix(1e9, 0)}
	m := memory{now: clock.read}
	const n = 20000
	for i := range n {
		m.wrote(types.UID(fmt.Sprint(i)), "1", []byte("content"))
	}
	if clock.reads > n {
		t.Errorf("%d writes read the clock %d times, want at most %d: recording a write must not visit the others", n, clock.reads, n)
	}
	if !m.seen("7", "1", []byte("content")) || m.seen("7", "1", []byte("other")) || m.seen("7", "2", []byte("content")) {
		t.Error("seen does not tell the write of a resourceVersion and content from others")
	}
	clock.now = clock.now.Add(staleAfter / 2)
	m.wrote("late", "", nil)
	clock.now = clock.now.Add(staleAfter / 2)
	m.prune()
	if got := m.size(); got != 1 || !m.created("late") {
		t.Errorf("after prune: %d writes remembered, want only the one younger than %v", got, staleAfter)
	}
}

// TestSyncLinear: one Sync of n policies reads the memory's clock a bounded number of times
// per write.
func TestSyncLinear(t *testing.T) {
	const ns, n = "ns", 100
	c := fakeOf(t, nil, append([]client.Object{gateway(ns, "gw", "*.example.com")}, routesWithPolicies(t, ns, "gw", n, false)...)...)
	clock := &countingClock{now: time.Unix(1e9, 0)}
	s := &Syncer{mem: memory{now: clock.read}}
	sum, err := s.Sync(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w := sum.Writes(); w < n || clock.reads > 3*w+3 {
		t.Errorf("Sync sent %d writes and read the clock %d times, want at most 3 a write", w, clock.reads)
	}
}

// TestSyncStatusWorkers: status patches run StatusWorkers at a time, never more.
func TestSyncStatusWorkers(t *testing.T) {
	const ns, n, workers = "ns", 40, 4
	var mu sync.Mutex
	inFlight, most, started := 0, 0, 0
	gate := make(chan struct{})
	funcs := &interceptor.Funcs{
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			mu.Lock()
			inFlight++
			started++
			most = max(most, inFlight)
			if inFlight == workers && started == workers {
				close(gate) // the first workers patches are all in flight
			}
			mu.Unlock()
			select {
			case <-gate:
			case <-time.After(10 * time.Second):
				return fmt.Errorf("%d patches in flight for 10s, want %d at once", inFlight, workers)
			}
			defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		},
	}
	c := fakeOf(t, funcs, append([]client.Object{gateway(ns, "gw", "*.example.com")}, routesWithPolicies(t, ns, "gw", n, false)...)...)
	var s Syncer
	sum, err := s.Sync(context.Background(), c, Options{StatusWorkers: workers})
	if err != nil {
		t.Fatal(err)
	}
	if sum.StatusPatches != n || most != workers {
		t.Errorf("Sync patched %d statuses with at most %d at once, want %d with %d at once", sum.StatusPatches, most, n, workers)
	}
}
