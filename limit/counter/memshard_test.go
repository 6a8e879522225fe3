package counter

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestMemShardTable drives one shard's table with clustered hashes (few
// distinct home slots, wrapping around the end) through inserts, updates,
// sweeps and evictions, and checks it against a map after every step.
func TestMemShardTable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sh := &memShard{rng: 1}
	want := map[string]int64{} // key -> expires
	hashOf := func(key string) uint32 {
		var h uint32
		for _, c := range key {
			h = h*31 + uint32(c)
		}
		return 0xFFFF_FFF8 + h%7 // seven homes at the end of any table
	}
	const capacity = 50
	lim := &memLimits{keys: capacity, keyBytes: 1 << 20, sweepEvery: 1 << 62}
	now := int64(0)
	for step := range 20_000 {
		now += int64(r.IntN(3)) * 1e6
		switch op := r.IntN(10); {
		case op < 6: // put a key, new or not
			key := fmt.Sprint("k", r.IntN(120))
			exp := now + int64(1+r.IntN(40))*1e6
			_, existed := want[key]
			if !sh.put(hashOf(key), key, State{Count: 1}, exp, now, lim, nil) {
				t.Fatalf("step %d: put(%s) refused with nothing to keep", step, key)
			}
			if !existed && len(want) >= capacity {
				// One key was evicted: find which.
				for k := range want {
					if sh.find(hashOf(k), k) == nil {
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
					if sh.find(hashOf(k), k) == nil {
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
			sl := sh.find(hashOf(k), k)
			if sl == nil || int64(sl.expires)*1e6 != exp {
				t.Fatalf("step %d: key %s lost or wrong (%+v), want expiry %d", step, k, sl, exp)
			}
		}
		checkArena(t, sh)
	}
}

// checkArena checks that the arena holds exactly the live keys and the
// garbage counted, and that no two slots share bytes.
func checkArena(t *testing.T, sh *memShard) {
	t.Helper()
	live := 0
	owner := make([]int, len(sh.keys))
	for i := range sh.slots {
		sl := &sh.slots[i]
		if sl.tag == 0 {
			continue
		}
		live += int(sl.keyLen)
		for b := sl.keyOff; b < sl.keyOff+sl.keyLen; b++ {
			if owner[b] != 0 {
				t.Fatalf("arena byte %d belongs to slots %d and %d", b, owner[b]-1, i)
			}
			owner[b] = i + 1
		}
	}
	if live+sh.garbage != len(sh.keys) {
		t.Fatalf("arena: %d live + %d garbage bytes, want %d", live, sh.garbage, len(sh.keys))
	}
}

// TestMemShardArenaBound fills a shard whose arena holds 64 bytes with keys
// of 10 to 30 bytes: keys are evicted to make room, the arena never exceeds
// its bound, and a key longer than the bound is refused.
func TestMemShardArenaBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sh := &memShard{rng: 1}
	lim := &memLimits{keys: 100, keyBytes: 64, sweepEvery: 1 << 62}
	for i := range 2_000 {
		key := fmt.Sprintf("%0*d", 10+r.IntN(21), i)
		if !sh.put(uint32(i+1), key, State{Count: 1}, 1e9, 0, lim, nil) {
			t.Fatalf("put %d (%d bytes) refused", i, len(key))
		}
		if sh.find(uint32(i+1), key) == nil {
			t.Fatalf("key %d not stored", i)
		}
		if len(sh.keys) > lim.keyBytes {
			t.Fatalf("arena holds %d bytes, bound %d", len(sh.keys), lim.keyBytes)
		}
		checkArena(t, sh)
	}
	n := sh.n
	if sh.put(9999, string(make([]byte, 65)), State{}, 1e9, 0, lim, nil) {
		t.Error("put of a key longer than the arena = true, want false")
	}
	if sh.n != n {
		t.Errorf("a refused key evicted %d keys, want none", n-sh.n)
	}
}

func TestMemShardEvictKeepsBatchKeys(t *testing.T) {
	sh := &memShard{rng: 1}
	lim := &memLimits{keys: 2, keyBytes: 1 << 20, sweepEvery: 1 << 62}
	keep := newBatchKeys(2, nil)
	for i, k := range []string{"a", "b"} {
		keep.names = append(keep.names, k)
		sh.put(uint32(i+1), k, State{}, 10, 0, lim, nil)
	}
	if sh.put(3, "c", State{}, 10, 0, lim, &keep) {
		t.Error("put in a full shard whose keys are all in the batch = true, want false (never exceed capacity)")
	}
	if sh.n != 2 {
		t.Errorf("shard holds %d keys, want 2", sh.n)
	}
}

// FuzzMemShard drives a shard with a small key and arena bound through the
// operations its input spells (two bytes each: an operation and an
// argument) and checks it against a map: a stored key is findable with its
// expiry, a key disappears only when swept, evicted by a full shard or
// pushed out of a full arena, and the bounds hold.
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
		lim := &memLimits{keys: 24, keyBytes: 256, sweepEvery: 1 << 62}
		want := map[string]int64{} // key -> expiry, whole seconds in µs
		// Nine homes at the end of any table: long probe runs that wrap.
		tagOf := func(key string) uint32 { return 0xFFFF_FFF0 + uint32(len(key)%9) }
		now := int64(0)
		for i := 0; i+1 < len(ops); i += 2 {
			op, arg := ops[i]%4, int(ops[i+1])
			now += int64(arg%3) * 1e6
			switch op {
			case 0, 1: // put a key of 1 to 40 bytes, new or not
				key := fmt.Sprintf("%0*d", 1+arg%40, arg%50)
				exp := now + int64(1+arg%20)*1e6
				full := sh.n >= lim.keys
				roomy := len(sh.keys)-sh.garbage+len(key) <= lim.keyBytes
				_, existed := want[key]
				if !sh.put(tagOf(key), key, State{Count: 1}, exp, now, lim, nil) {
					t.Fatalf("op %d: put(%q) refused with nothing to keep", i/2, key)
				}
				want[key] = exp
				lost := 0
				for k := range want {
					if sh.find(tagOf(k), k) == nil {
						delete(want, k)
						lost++
					}
				}
				if lost > 0 && (existed || !full && roomy) {
					t.Fatalf("op %d: put(%q) lost %d keys (existed %v, full %v, arena roomy %v)", i/2, key, lost, existed, full, roomy)
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
					if sh.find(tagOf(k), k) == nil {
						delete(want, k)
						break
					}
				}
			}
			if sh.n != len(want) || sh.n > lim.keys || len(sh.keys) > lim.keyBytes {
				t.Fatalf("op %d: %d keys (want %d, bound %d), %d arena bytes (bound %d)", i/2, sh.n, len(want), lim.keys, len(sh.keys), lim.keyBytes)
			}
			for k, exp := range want {
				if sl := sh.find(tagOf(k), k); sl == nil || int64(sl.expires)*1e6 != exp {
					t.Fatalf("op %d: key %q lost or wrong (%+v), want expiry %d", i/2, k, sl, exp)
				}
			}
			checkArena(t, sh)
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
	lim := &memLimits{keys: 100_000, keyBytes: 1 << 30, sweepEvery: 1e6}
	hashOf := func(i int) uint32 { return uint32(i)*2654435761 | 1 }
	const old = 10_000
	for i := range old {
		sh.put(hashOf(i), fmt.Sprint("old", i), State{Count: 1}, 1e6, 0, lim, nil)
	}
	slots := len(sh.slots)
	if slots <= step {
		t.Fatalf("table of %d slots, want more than one step's %d", slots, step)
	}
	before := sh.n
	sh.put(hashOf(old), "new0", State{Count: 1}, 10e6, 3e6, lim, nil)
	if removed := before + 1 - sh.n; removed > step || removed == 0 {
		t.Fatalf("the first write after expiry removed %d of %d expired counters, want 1 to %d (one step)", removed, old, step)
	}
	writes := 1
	for ; sh.n > writes && writes < 100; writes++ {
		sh.put(hashOf(old+writes), fmt.Sprint("new", writes), State{Count: 1}, 10e6, 3e6, lim, nil)
	}
	if sh.n != writes {
		t.Fatalf("after %d writes the shard holds %d counters, want only the %d new ones", writes, sh.n, writes)
	}
	// Each step looks at 4,096 slots, those deletions shift included.
	if max := 4*slots/step + 2; writes > max {
		t.Errorf("the pass took %d writes, want at most %d for %d slots", writes, max, slots)
	}
}
