package counter

import "github.com/rlpkit/rlpkit/limit/internal/keyset"

// linearDedup is the batch size up to which a batch's keys are told apart by
// comparing them with each other (no allocation); larger batches use maps,
// so that grouping a batch costs time linear in its size.
const linearDedup = maxBatchOnStack

// batchKeys is the set of distinct keys of one batch, in the order of first
// use: what groups a batch's updates by counter, and what eviction skips
// while the batch is stored.
type batchKeys struct {
	keyset.Set
	ids  []keyID            // the identity of each name in its shard
	held map[keyID]struct{} // the ids, with Index
}

// newBatchKeys returns an empty set for a batch of n updates, keeping the
// names and ids in the storage given.
func newBatchKeys(n int, names []string, ids []keyID) batchKeys {
	b := batchKeys{Set: keyset.New(n, linearDedup, names), ids: ids[:0]}
	if b.Index != nil {
		b.held = make(map[keyID]struct{}, n)
	}
	return b
}

// add returns the set with a key that find did not find, of identity id,
// added, and the key's index. (A value in and out: appending through a
// pointer would make the compiler move the batch's storage to the heap.)
func (b batchKeys) add(key string, id keyID) (batchKeys, int) {
	k := len(b.Names)
	b.Names = append(b.Names, key)
	b.ids = append(b.ids, id)
	if b.Index != nil {
		b.Index[key] = k
		b.held[id] = struct{}{}
	}
	return b, k
}

// holds reports whether the key of identity id is one of the batch's keys.
// A nil b holds nothing.
func (b *batchKeys) holds(id keyID) bool {
	if b == nil {
		return false
	}
	if b.held != nil {
		b.Probes++
		_, ok := b.held[id]
		return ok
	}
	for _, have := range b.ids {
		b.Probes++
		if have == id {
			return true
		}
	}
	return false
}
