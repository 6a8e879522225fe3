package counter

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// checkOf is a test's second hash of a key: FNV-1a, distinct for the few
// keys of a test.
func checkOf(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// TestMemShardTable drives one shard's table with clustered hashes (few
// distinct home slots, wrapping around the end) through inserts, updates,
// sweeps and evictions, and checks it against a map after every step.
func TestMemShardTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sh := &memShard{rng: 1}
	want := map[string]int64{} // key -> expires
	idOf := func(key string) keyID {
		var h uint32
		for _, c := range key {
			h = h*31 + uint32(c)
		}
		// seven homes at the end of any table, so keys share tags
		return keyID{tag: 0xFFFF_FFF8 + h%7, check: checkOf(key)}
	}
	const capacity = 50
	lim := &memLimits{keys: capacity, sweepEvery: 1 << 62}
	now := int64(0)
	for step := range 20_000 {
		now += int64(r.IntN(3)) * 1e6
		switch op := r.IntN(10); {
		case op < 6: // put a key, new or not
			key := fmt.Sprint("k", r.IntN(120))
			exp := now + int64(1+r.IntN(40))*1e6
			_, existed := want[key]
			if !sh.put(idOf(key), State{Count: 1}, exp, now, lim, nil) {
				t.Fatalf("step %d: put(%s) refused with nothing to keep", step, key)
			}
			if !existed && len(want) >= capacity {
				// One key was evicted: find which.
				for k := range want {
					if sh.find(idOf(k)) == nil {
						delete(want, k)
						break
					}
				}
			}
			want[key] = exp
		case op < 8:
			sh.sweep(now)
			for k, exp := range want {
				if exp <= now {
					delete(want, k)
				}
			}
		default:
			if len(want) > 0 && sh.evict(nil) {
				for k := range want {
					if sh.find(idOf(k)) == nil {
						delete(want, k)
						break
					}
				}
			}
		}
		if sh.n != len(want) || sh.n > capacity {
			t.Fatalf("step %d: table holds %d keys, want %d (capacity %d)", step, sh.n, len(want), capacity)
		}
		for k, exp := range want {
			sl := sh.find(idOf(k))
			if sl == nil || int64(sl.expires)*1e6 != exp {
				t.Fatalf("step %d: key %s lost or wrong (%+v), want expiry %d", step, k, sl, exp)
			}
		}
		checkDistinct(t, sh)
	}
}

// checkDistinct checks that no two slots hold the same identity and that
// the shard counts its occupied slots.
func checkDistinct(t *testing.T, sh *memShard) {
	t.Helper()
	seen := map[keyID]int{}
	for i := range sh.slots {
		sl := &sh.slots[i]
		if sl.tag == 0 {
			continue
		}
		if j, dup := seen[sl.id()]; dup {
			t.Fatalf("slots %d and %d hold the same key %+v", j, i, sl.id())
		}
		seen[sl.id()] = i
	}
	if len(seen) != sh.n {
		t.Fatalf("%d occupied slots, the shard counts %d", len(seen), sh.n)
	}
}

// TestMemShardTellsKeysApart stores keys that share a tag or a check with
// each other: each is its own counter, and only a key of both the tag and
// the check finds one.
func TestMemShardTellsKeysApart(t *testing.T) {
	sh := &memShard{rng: 1}
	lim := &memLimits{keys: 10, sweepEvery: 1 << 62}
	ids := []keyID{{tag: 5, check: 1}, {tag: 5, check: 2}, {tag: 6, check: 1}, {tag: 21, check: 1}} // 21: home 5 in 16 slots
	for i, id := range ids {
		if !sh.put(id, State{Count: uint64(i + 1)}, 1e9, 0, lim, nil) {
			t.Fatalf("put %+v refused", id)
		}
	}
	if sh.n != len(ids) {
		t.Fatalf("shard holds %d counters, want %d", sh.n, len(ids))
	}
	for i, id := range ids {
		if sl := sh.find(id); sl == nil || sl.count != uint32(i+1) {
			t.Errorf("find(%+v) = %+v, want the counter of count %d", id, sl, i+1)
		}
	}
	for _, id := range []keyID{{tag: 5, check: 3}, {tag: 6, check: 2}, {tag: 7, check: 1}} {
		if sl := sh.find(id); sl != nil {
			t.Errorf("find(%+v) = %+v, want none", id, sl)
		}
	}
	checkDistinct(t, sh)
}

func TestMemShardEvictKeepsBatchKeys(t *testing.T) {
	sh := &memShard{rng: 1}
	lim := &memLimits{keys: 2, sweepEvery: 1 << 62}
	keep := newBatchKeys(2, nil, nil)
	for i, k := range []string{"a", "b"} {
		id := keyID{tag: uint32(i + 1), check: checkOf(k)}
		keep, _ = keep.add(k, id)
		sh.put(id, State{}, 10, 0, lim, nil)
	}
	if sh.put(keyID{tag: 3, check: checkOf("c")}, State{}, 10, 0, lim, &keep) {
		t.Error("put in a full shard whose keys are all in the batch = true, want false (never exceed capacity)")
	}
	if sh.n != 2 {
		t.Errorf("shard holds %d keys, want 2", sh.n)
	}
}

// FuzzMemShard drives a shard with a small bound through the operations its
// input spells (two bytes each: an operation and an argument) and checks it
// against a map: a stored key is findable with its expiry, a key disappears
// only when swept or evicted by a full shard, and the bound holds.
func FuzzMemShard(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 0, 3, 1, 0, 2, 0})
	f.Add([]byte("put many keys, sweep some, evict others: \x00\x07\x00\x08\x02\x09\x00\xff\x01\x10"))
	f.Add(func() []byte {
		b := make([]byte, 0, 400)
		for i := range 200 {
			b = append(b, byte(i%3), byte(i*37))
		}
		return b
	}())
	f.Fuzz(func(t *testing.T, ops []byte) {
		sh := &memShard{rng: 1}
		lim := &memLimits{keys: 24, sweepEvery: 1 << 62}
		want := map[string]int64{} // key -> expiry, whole seconds in µs
		// Nine homes at the end of any table: long probe runs that wrap.
		idOf := func(key string) keyID { return keyID{tag: 0xFFFF_FFF0 + uint32(len(key)%9), check: checkOf(key)} }
		now := int64(0)
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%4, int(ops[i+1])
			now += int64(arg%3) * 1e6
			switch op {
			case 0, 1: // put a key of 1 to 40 bytes, new or not
				key := fmt.Sprintf("%0*d", 1+arg%40, arg%50)
				exp := now + int64(1+arg%20)*1e6
				full := sh.n >= lim.keys
				_, existed := want[key]
				if !sh.put(idOf(key), State{Count: 1}, exp, now, lim, nil) {
					t.Fatalf("op %d: put(%q) refused with nothing to keep", i/2, key)
				}
				want[key] = exp
				lost := 0
				for k := range want {
					if sh.find(idOf(k)) == nil {
						delete(want, k)
						lost++
					}
				}
				if lost > 1 || lost > 0 && (existed || !full) {
					t.Fatalf("op %d: put(%q) lost %d keys (existed %v, full %v)", i/2, key, lost, existed, full)
				}
			case 2:
				sh.sweep(now)
				for k, exp := range want {
					if exp <= now {
						delete(want, k)
					}
				}
			case 3:
				if sh.evict(nil) != (len(want) > 0) {
					t.Fatalf("op %d: evict with %d keys did not evict exactly one", i/2, len(want))
				}
				for k := range want {
					if sh.find(idOf(k)) == nil {
						delete(want, k)
						break
					}
				}
			}
			if sh.n != len(want) || sh.n > lim.keys {
				t.Fatalf("op %d: %d keys (want %d, bound %d)", i/2, sh.n, len(want), lim.keys)
			}
			for k, exp := range want {
				if sl := sh.find(idOf(k)); sl == nil || int64(sl.expires)*1e6 != exp {
					t.Fatalf("op %d: key %q lost or wrong (%+v), want expiry %d", i/2, k, sl, exp)
				}
			}
			checkDistinct(t, sh)
		}
	})
}

// TestMemShardSweepStep fills one shard with 10,000 counters that expire
// together, then writes new counters: each write removes at most a bounded
// step's worth of the expired ones (never the whole shard under one lock),
// and a few writes remove them all.
func TestMemShardSweepStep(t *testing.T) {
	const step = 4096 // the default sweep budget
	sh := &memShard{rng: 1}
	lim := &memLimits{keys: 100_000, sweepEvery: 1e6}
	idOf := func(i int) keyID { return keyID{tag: uint32(i)*2654435761 | 1, check: uint64(i)} }
	const old = 10_000
	for i := range old {
		sh.put(idOf(i), State{Count: 1}, 1e6, 0, lim, nil)
	}
	slots := len(sh.slots)
	if slots <= step {
		t.Fatalf("table of %d slots, want more than one step's %d", slots, step)
	}
	before := sh.n
	sh.put(idOf(old), State{Count: 1}, 10e6, 3e6, lim, nil)
	if removed := before + 1 - sh.n; removed > step || removed == 0 {
		t.Fatalf("the first write after expiry removed %d of %d expired counters, want 1 to %d (one step)", removed, old, step)
	}
	writes := 1
	for ; sh.n > writes && writes < 100; writes++ {
		sh.put(idOf(old+writes), State{Count: 1}, 10e6, 3e6, lim, nil)
	}
	if sh.n != writes {
		t.Fatalf("after %d writes the shard holds %d counters, want only the %d new ones", writes, sh.n, writes)
	}
	// Each step looks at 4,096 slots, those deletions shift included.
	if max := 4*slots/step + 2; writes > max {
		t.Errorf("the pass took %d writes, want at most %d for %d slots", writes, max, slots)
	}
}

// TestMemLayout checks the sizes the memory store's figures rest on: two
// slots to a cache line, and shards that never share one.
func TestMemLayout(t *testing.T) {
	if got := unsafe.Sizeof(memSlot{}); got != 32 {
		t.Errorf("memSlot is %d bytes, want 32", got)
	}
	if got := unsafe.Sizeof(memShard{}); got != 128 {
		t.Errorf("memShard is %d bytes, want 128", got)
	}
}
