package redis

import (
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// linearDedup is the batch size up to which distinct keys are found by
// comparing with each other rather than with a map.
const linearDedup = 32

// batch is the per-call scratch of one Update, reused through a pool.
type batch struct {
	keys   []string        // distinct keys, prefixed: the script's KEYS
	names  []string        // the same keys as given, for deduplication
	keyOf  []int           // update index -> key index
	ends   []int           // per key: end of its prefixed form in kbuf
	kbuf   []byte          // prefixed keys
	args   []byte          // the script's ARGV[1], doubles (see script.AppendNum)
	stored []counter.State // per key: the state the script read
	work   []counter.State // per key: the state while replaying
	script *goredis.Script // updateScript, or fixedScript for fixed windows only
	argv   [2]string       // the script's ARGV: "" (its keys are KEYS), args as a string
	call   call            // the script call
}

func (b *batch) reset() {
	clear(b.keys)
	clear(b.names)
	b.keys, b.names, b.keyOf, b.ends = b.keys[:0], b.names[:0], b.keyOf[:0], b.ends[:0]
	b.kbuf, b.args, b.stored, b.work = b.kbuf[:0], b.args[:0], b.stored[:0], b.work[:0]
	b.argv[1], b.script = "", nil
	b.call = call{done: b.call.done, kbuf: b.call.kbuf[:0], eval: b.call.eval}
}

// build fills keys and args for updates at nowUs.
func (b *batch) build(s *Store, nowUs int64, updates []counter.Update) {
	b.addKeys(s, updates)
	b.script = scriptFor(updates)
	update := b.script == updateScript // else fixedScript
	a := b.args
	a = script.AppendNum(a, nowUs)
	a = script.AppendNum(a, boolNum(s.serverTime))
	a = script.AppendNum(a, s.marginMs)
	a = script.AppendNum(a, int64(len(updates)))
	for i := range updates {
		u := &updates[i]
		p := &u.Policy
		a = script.AppendNum(a, int64(b.keyOf[i]+1))
		if update {
			a = script.AppendNum(a, scriptAlgorithm(p))
		}
		a = script.AppendNum(a, int64(p.Max))
		if !update && p.FirstHit {
			// fixed.lua takes a negative window for a window from its first hit.
			a = script.AppendNum(a, -p.Window.Microseconds())
		} else {
			a = script.AppendNum(a, p.Window.Microseconds())
		}
		if update {
			if p.Algorithm == counter.AlgorithmSlidingWindow && p.Weighted {
				a = script.AppendNum(a, int64(p.Weight))
			} else {
				a = script.AppendNum(a, -1)
			}
		}
		// Any cost above the largest max is rejected whatever the state;
		// bounding it keeps the script's numbers exact.
		a = script.AppendNum(a, int64(min(u.Cost, counter.MaxPolicyValue+1)))
	}
	b.args = a
}

// addKeys fills names, keyOf and keys from updates: one key for each
// distinct Update.Key, in the order of first use.
func (b *batch) addKeys(s *Store, updates []counter.Update) {
	var index map[string]int
	if len(updates) > linearDedup {
		index = make(map[string]int, len(updates))
	}
	for i := range updates {
		u := &updates[i]
		k := b.lookUp(index, u.Key)
		if k < 0 {
			k = b.addKey(s, index, u.Key)
		}
		b.keyOf = append(b.keyOf, k)
	}
	b.setKeys(s)
}

// setKeys fills keys, the script's KEYS, from the distinct keys added.
// Without a prefix they are the caller's strings, which may alias memory
// the caller reuses once Update returns: the pipeliner copies them when it
// queues the call (call.own), the one case where they are read later.
func (b *batch) setKeys(s *Store) {
	if s.prefix == "" {
		b.keys = append(b.keys, b.names...)
		return
	}
	// kbuf no longer grows: the keys can view it until the call ends.
	start := 0
	for _, end := range b.ends {
		b.keys = append(b.keys, unsafe.String(&b.kbuf[start], end-start))
		start = end
	}
}

// lookUp returns the index of key among the keys added so far, or -1: from
// index when the batch is large enough to have one, else by comparing.
func (b *batch) lookUp(index map[string]int, key string) int {
	if index != nil {
		if j, ok := index[key]; ok {
			return j
		}
		return -1
	}
	for j, name := range b.names {
		if name == key {
			return j
		}
	}
	return -1
}

// addKey adds key as the next distinct key and returns its index.
func (b *batch) addKey(s *Store, index map[string]int, key string) int {
	k := len(b.names)
	b.names = append(b.names, key)
	if index != nil {
		index[key] = k
	}
	if s.prefix != "" {
		b.kbuf = append(b.kbuf, s.prefix...)
		b.kbuf = append(b.kbuf, key...)
		b.ends = append(b.ends, len(b.kbuf))
	}
	return k
}

// scriptFor returns the script that decides updates: fixedScript when every
// update is a fixed window, else updateScript.
func scriptFor(updates []counter.Update) *goredis.Script {
	for i := range updates {
		if updates[i].Policy.Algorithm != counter.AlgorithmFixedWindow {
			return updateScript
		}
	}
	return fixedScript
}

// scriptAlgorithm returns the script's number for p's algorithm: the
// Algorithm, or 4 for the fixed window starting at its first hit.
func scriptAlgorithm(p *counter.Policy) int64 {
	if p.Algorithm == counter.AlgorithmFixedWindow && p.FirstHit {
		return 4
	}
	return int64(p.Algorithm)
}

func boolNum(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// replay computes the decisions from the states the script read, as the
// memory store does, and reports whether every update is admitted.
func (b *batch) replay(now time.Time, updates []counter.Update, decisions []counter.Decision) bool {
	b.work = append(b.work, b.stored...)
	admitted := true
	for i := range updates {
		u := &updates[i]
		k := b.keyOf[i]
		var d counter.Decision
		b.work[k], d = u.Policy.Decide(b.work[k], now, u.Cost)
		decisions[i] = d
		admitted = admitted && d.Allowed
	}
	if !admitted {
		// Nothing was consumed: describe the admitted ones as checks.
		for i := range updates {
			if decisions[i].Allowed {
				_, decisions[i] = updates[i].Policy.Decide(b.stored[b.keyOf[i]], now, 0)
			}
		}
	}
	return admitted
}
