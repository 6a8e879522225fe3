package limit

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
	hashOf := func(key string) uint64 {
		var h uint64
		for _, c := range key {
			h = h*31 + uint64(c)
		}
		return (0xFFFF_FFF8+h%7)<<32 | 1 // seven homes at the end of any table
	}
	const capacity = 50
	now := int64(0)
	for step := range 20_000 {
		now += int64(r.IntN(3))
		switch op := r.IntN(10); {
		case op < 6: // put a key, new or not
			key := fmt.Sprint("k", r.IntN(120))
			exp := now + int64(1+r.IntN(40))
			_, existed := want[key]
			if !sh.put(hashOf(key), key, State{Count: 1}, exp, now, capacity, 1<<62, nil) {
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
			if sl == nil || sl.expires != exp {
				t.Fatalf("step %d: key %s lost or wrong (%+v), want expiry %d", step, k, sl, exp)
			}
		}
	}
}

func TestMemShardEvictKeepsBatchKeys(t *testing.T) {
	sh := &memShard{rng: 1}
	keep := []Update{{Key: "a"}, {Key: "b"}}
	for i, k := range []string{"a", "b"} {
		sh.put(uint64(i+1)<<32|1, k, State{}, 10, 0, 2, 1<<62, nil)
	}
	if sh.put(3<<32|1, "c", State{}, 10, 0, 2, 1<<62, keep) {
		t.Error("put in a full shard whose keys are all in the batch = true, want false (never exceed capacity)")
	}
	if sh.n != 2 {
		t.Errorf("shard holds %d keys, want 2", sh.n)
	}
}
