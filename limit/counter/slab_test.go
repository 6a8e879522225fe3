package counter

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"
)

func TestSlabOrder(t *testing.T) {
	for _, tc := range []struct {
		n    int
		k    int
		slab bool
	}{
		{0, 0, false}, {4095, 0, false}, {4096, 12, true}, {4097, 13, true},
		{1 << 20, 20, true}, {1<<20 + 1, 21, true}, {slabChunk, slabMaxOrder, true}, {slabChunk + 1, 0, false},
	} {
		k, ok := slabOrder(tc.n)
		if ok != tc.slab || ok && k != tc.k {
			t.Errorf("slabOrder(%d) = %d, %v; want %d, %v", tc.n, k, ok, tc.k, tc.slab)
		}
	}
}

// TestSlabBuddy allocates and releases blocks of random orders, filling
// each with its own byte: no two live blocks overlap (a block still holds
// its byte when released), freed memory is reused before a chunk is added,
// and once everything is released the blocks merge back into whole chunks.
func TestSlabBuddy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	s := &slab{}
	type live struct {
		addr int64
		k    int
		fill byte
		b    []byte
	}
	var blocks []live
	// Blocks are aligned to their power-of-two sizes, so one that
	// overlaps another covers the first byte of one of its 4 KiB units:
	// those bytes hold a block's fill.
	const unit = 1 << slabMinOrder
	check := func(l live) {
		t.Helper()
		for i := 0; i < len(l.b); i += unit {
			if l.b[i] != l.fill {
				t.Fatalf("block %#x (order %d) byte %d = %d, want %d: another block overlapped it", l.addr, l.k, i, l.b[i], l.fill)
			}
		}
	}
	var used, peak int64
	for step := range 3000 {
		if len(blocks) > 0 && (r.IntN(2) == 0 || used > 3*slabChunk) {
			i := r.IntN(len(blocks))
			l := blocks[i]
			check(l)
			s.release(l.addr, l.k)
			used -= 1 << l.k
			blocks[i] = blocks[len(blocks)-1]
			blocks = blocks[:len(blocks)-1]
			continue
		}
		k := slabMinOrder + r.IntN(9) // 4 KiB to 1 MiB
		addr, b := s.alloc(k)
		if len(b) != 1<<k || cap(b) != 1<<k {
			t.Fatalf("step %d: alloc(%d) gave %d bytes (cap %d)", step, k, len(b), cap(b))
		}
		if addr&(1<<k-1) != 0 {
			t.Fatalf("step %d: block of order %d at %#x, not aligned to its size", step, k, addr)
		}
		fill := byte(step%255 + 1)
		for i := 0; i < len(b); i += unit {
			b[i] = fill
		}
		blocks = append(blocks, live{addr, k, fill, b})
		used += 1 << k
		peak = max(peak, used)
	}
	// A buddy allocator needs at most twice the peak, rounded up to chunks.
	if chunks := int64(len(s.chunks)); chunks > 2*peak/slabChunk+1 {
		t.Errorf("%d chunks for a peak of %d bytes in use", chunks, peak)
	}
	for _, l := range blocks {
		check(l)
		s.release(l.addr, l.k)
	}
	top := s.free[slabOrders-1]
	if len(top) != len(s.chunks) {
		t.Errorf("after releasing everything: %d whole chunks free of %d", len(top), len(s.chunks))
	}
	for k := range slabOrders - 1 {
		if n := len(s.free[k]); n != 0 {
			t.Errorf("after releasing everything: %d free blocks of order %d left unmerged", n, k+slabMinOrder)
		}
	}
	chunks := len(s.chunks)
	for range chunks {
		s.alloc(slabMaxOrder)
	}
	if len(s.chunks) != chunks {
		t.Errorf("taking back %d whole chunks added %d", chunks, len(s.chunks)-chunks)
	}
}

func TestSlabChunkAligned(t *testing.T) {
	c := newChunk()
	if len(c) != slabChunk {
		t.Fatalf("chunk of %d bytes, want %d", len(c), slabChunk)
	}
	if p := uintptr(unsafe.Pointer(&c[0])); p%hugePage != 0 {
		t.Errorf("chunk at %#x, not on a huge page boundary", p)
	}
}

// TestMemoryStoreSlab drives a store big enough for the slab with 16
// goroutines, each its own keys, long enough for their shards' tables and
// arenas to come from the slab and outgrow it several times: each key's
// decisions are those of Policy.Decide over its own sequence.
func TestMemoryStoreSlab(t *testing.T) {
	m := NewMemoryStore(MemoryOptions{MaxKeys: 1 << 21})
	if m.lim.slab == nil {
		t.Fatalf("a store of %d counters has no slab", 1<<21)
	}
	p := Policy{Max: 3, Window: time.Hour}
	prefix := fmt.Sprintf("%0100d", 0) // long keys: arenas of 4 KiB and more
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := range 16 {
		wg.Go(func() {
			states := map[string]State{}
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 40_000 {
				key := prefix + strconv.Itoa(g) + "/" + strconv.Itoa(r.IntN(20_000))
				now := t0.Add(time.Duration(i) * time.Millisecond)
				var want Decision
				states[key], want = p.Decide(states[key], now, 1)
				got, err := m.UpdateOne(now, Update{Key: key, Policy: p, Cost: 1})
				if err != nil || got != want {
					errs <- fmt.Errorf("goroutine %d, step %d, key %s: got %+v, %v; want %+v", g, i, key[100:], got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	m.lim.slab.mu.Lock()
	chunks := len(m.lim.slab.chunks)
	m.lim.slab.mu.Unlock()
	if chunks == 0 {
		t.Errorf("the store's %d keys took nothing from the slab", m.Len())
	}
	for i := range m.shards {
		sh := &m.shards[i]
		if sh.slotsAt == 0 && len(sh.slots)*slotSize >= 1<<slabMinOrder {
			t.Errorf("shard %d: a table of %d slots on the heap", i, len(sh.slots))
		}
	}
}
