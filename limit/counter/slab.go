package counter

import (
	"sync"
	"unsafe"
)

// slab holds the shard tables and key arenas of a big memory store (more
// than 1,048,576 counters: see NewMemoryStore) in chunks of slabChunk bytes
// that it asks the kernel, before touching them, to back with transparent
// huge pages (madvise MADV_HUGEPAGE, on Linux; see hugePages). Past the
// caches a decision waits for a slot and then for its key's bytes, each on
// a page of its own: with 4 KiB pages the walk of the page table adds to
// both waits, while 2 MiB pages cover the whole store from the TLB. Where
// the kernel gives no huge page (THP set to never, or no contiguous memory
// free) the chunks are ordinary memory, and nothing else changes.
//
// A chunk is cut into blocks of power-of-two sizes, from 4 KiB, by a buddy
// allocator: a block freed next to its free buddy merges with it, so that
// the tables and arenas that shards outgrow are reused by the next ones.
// Smaller tables and arenas stay on the Go heap. Chunks are Go memory
// without pointers: the garbage collector never scans them, and frees
// them with the store. A slab is safe for concurrent use; its lock is
// taken only when a shard grows or compacts.
type slab struct {
	mu     sync.Mutex
	chunks [][]byte
	// Free blocks by order: the set says which are, the stack which to
	// take first; a block merged with its buddy leaves a stale entry in
	// the stack, skipped when popped.
	free  [slabOrders]map[int64]struct{}
	stack [slabOrders][]int64
}

const (
	slabMinOrder = 12 // a 4 KiB block, the smallest
	slabMaxOrder = 25 // a 32 MiB block: a whole chunk
	slabOrders   = slabMaxOrder - slabMinOrder + 1
	slabChunk    = 1 << slabMaxOrder
	hugePage     = 2 << 20
)

// slabOrder returns the order of the smallest block holding n bytes, and
// false when n is below a minimal block or above a chunk: such memory
// comes from the Go heap.
func slabOrder(n int) (int, bool) {
	if n < 1<<slabMinOrder || n > slabChunk {
		return 0, false
	}
	k := slabMinOrder
	for 1<<k < n {
		k++
	}
	return k, true
}

// block is a block's memory: at addr (chunk index << slabMaxOrder | offset),
// of order k.
func (s *slab) block(addr int64, k int) []byte {
	c := s.chunks[addr>>slabMaxOrder]
	off := addr & (slabChunk - 1)
	return c[off : off+1<<k : off+1<<k]
}

// alloc returns a block of order k (slabMinOrder <= k <= slabMaxOrder)
// and its address; its bytes are what the block last held (zero when new).
func (s *slab) alloc(k int) (int64, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := k
	for j <= slabMaxOrder && len(s.free[j-slabMinOrder]) == 0 {
		j++
	}
	var addr int64
	if j > slabMaxOrder {
		addr, j = s.grow(), slabMaxOrder
	} else {
		addr = s.pop(j)
	}
	for j > k { // split: the upper half goes free
		j--
		s.push(j, addr+1<<j)
	}
	return addr, s.block(addr, k)
}

// release frees the block of order k at addr, merging it with its buddy
// while that is free.
func (s *slab) release(addr int64, k int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k < slabMaxOrder {
		buddy := addr ^ 1<<k
		set := s.free[k-slabMinOrder]
		if _, ok := set[buddy]; !ok {
			break
		}
		delete(set, buddy) // its stack entry goes stale
		addr &^= 1 << k
		k++
	}
	s.push(k, addr)
}

// grow adds a chunk and returns its address.
func (s *slab) grow() int64 {
	s.chunks = append(s.chunks, newChunk())
	return int64(len(s.chunks)-1) << slabMaxOrder
}

// newChunk returns slabChunk bytes starting on a huge page boundary, which
// it asks the kernel to back with huge pages.
func newChunk() []byte {
	raw := make([]byte, slabChunk+hugePage)
	skip := 0
	if r := int(uintptr(unsafe.Pointer(&raw[0])) % hugePage); r != 0 {
		skip = hugePage - r
	}
	c := raw[skip : skip+slabChunk : skip+slabChunk]
	hugePages(c)
	return c
}

func (s *slab) push(k int, addr int64) {
	i := k - slabMinOrder
	if s.free[i] == nil {
		s.free[i] = map[int64]struct{}{}
	}
	s.free[i][addr] = struct{}{}
	s.stack[i] = append(s.stack[i], addr)
}

// pop takes a free block of order k; there is one.
func (s *slab) pop(k int) int64 {
	i := k - slabMinOrder
	for {
		n := len(s.stack[i]) - 1
		addr := s.stack[i][n]
		s.stack[i] = s.stack[i][:n]
		if _, ok := s.free[i][addr]; ok {
			delete(s.free[i], addr)
			return addr
		}
	}
}
