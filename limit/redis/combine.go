package redis

import (
	"unsafe"

	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// DefaultBatchRequests bounds the Updates one script call decides, unless
// Options.BatchRequests says otherwise.
const DefaultBatchRequests = 64

// combiner is a sender's scratch for turning the calls of one pipeline
// into script calls: consecutive calls (in arrival order) of one script
// go into one script call, at most per of them. On a sharded client
// "consecutive" counts within each hash tag, whose calls share a script
// call only with each other: calls of other tags touch other keys, so
// their order does not matter. The script calls are sent in the order
// they open, so that each key sees its calls in arrival order. The
// combiner is reused from one pipeline to the next.
type combiner struct {
	groups [][]*call // per script call, its calls
	keys   [][]string
	args   [][]string     // ARGV: the map of keys (or "" for one call), then each call's numbers
	maps   [][]byte       // the bytes of args[g][0] when merged
	open   map[string]int // the last group of a hash tag ("" when standalone)
	index  map[string]int // key -> index into the script call's KEYS
}

// group splits live into script calls.
func (cb *combiner) group(live []*call, sharded bool, per int) {
	if cb.open == nil {
		cb.open, cb.index = make(map[string]int), make(map[string]int)
	}
	clear(cb.open)
	n := 0
	for _, c := range live {
		tag := "" // a standalone client: every key can share a call
		if sharded {
			tag = script.HashTag(c.keys[0])
		}
		g, ok := cb.open[tag]
		if !ok || len(cb.groups[g]) == per || cb.groups[g][0].script != c.script {
			g = n
			n++
			if g == len(cb.groups) {
				cb.groups = append(cb.groups, nil)
				cb.keys = append(cb.keys, nil)
				cb.args = append(cb.args, nil)
				cb.maps = append(cb.maps, nil)
			}
			cb.groups[g] = cb.groups[g][:0]
			cb.open[tag] = g
		}
		cb.groups[g] = append(cb.groups[g], c)
	}
	for g := n; g < len(cb.groups); g++ {
		clear(cb.groups[g])
	}
	cb.groups = cb.groups[:n]
	for g := range n {
		cb.merge(g)
	}
}

// merge sets the keys and arguments of script call g: a single call's
// own, or the distinct keys of its calls and, in ARGV[1], each call's keys
// as indexes into them.
func (cb *combiner) merge(g int) {
	calls := cb.groups[g]
	if len(calls) == 1 {
		cb.keys[g], cb.args[g] = calls[0].keys, calls[0].args
		return
	}
	clear(cb.index)
	keys, m := cb.keys[g][:0], cb.maps[g][:0]
	args := append(cb.args[g][:0], "")
	for _, c := range calls {
		m = script.AppendNum(m, int64(len(c.keys)))
		for _, k := range c.keys {
			i, ok := cb.index[k]
			if !ok {
				i = len(keys)
				cb.index[k] = i
				keys = append(keys, k)
			}
			m = script.AppendNum(m, int64(i+1))
		}
		args = append(args, c.args[1])
	}
	args[0] = unsafe.String(unsafe.SliceData(m), len(m)) // m is not written again until done
	cb.keys[g], cb.args[g], cb.maps[g] = keys, args, m
}

// done drops the references to the calls, keys and arguments sent.
func (cb *combiner) done() {
	for g := range cb.groups {
		clear(cb.groups[g])
		if len(cb.groups[g]) > 1 {
			clear(cb.keys[g])
			clear(cb.args[g])
		} else {
			cb.keys[g], cb.args[g] = nil, nil
		}
	}
	clear(cb.index)
}
