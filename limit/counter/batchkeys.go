package counter

// linearDedup is the batch size up to which a batch's keys are told apart by
// comparing them with each other (no allocation); larger batches use maps,
// so that grouping a batch costs time linear in its size.
const linearDedup = maxBatchOnStack

// batchKeys is the set of distinct keys of one batch, in the order of first
// use: what groups a batch's updates by counter, and what eviction skips
// while the batch is stored.
type batchKeys struct {
	names []string
	ids   []keyID            // the identity of each name in its shard
	index map[string]int     // name -> index in names; nil up to linearDedup updates
	held  map[keyID]struct{} // the ids, with index
	// probes counts key comparisons and map look-ups, so that tests can
	// check that the work is linear in the batch size.
	probes int
}

// newBatchKeys returns an empty set for a batch of n updates, keeping the
// names and ids in the storage given.
func newBatchKeys(n int, names []string, ids []keyID) batchKeys {
	b := batchKeys{names: names[:0], ids: ids[:0]}
	if n > linearDedup {
		b.index = make(map[string]int, n)
		b.held = make(map[keyID]struct{}, n)
	}
	return b
}

// find returns the index of key among the distinct keys, or -1.
func (b *batchKeys) find(key string) int {
	if b.index != nil {
		b.probes++
		if k, ok := b.index[key]; ok {
			return k
		}
		return -1
	}
	for k, name := range b.names {
		b.probes++
		if name == key {
			return k
		}
	}
	return -1
}

// add returns the set with a key that find did not find, of identity id,
// added, and the key's index. (A value in and out: appending through a
// pointer would make the compiler move the batch's storage to the heap.)
func (b batchKeys) add(key string, id keyID) (batchKeys, int) {
	k := len(b.names)
	b.names = append(b.names, key)
	b.ids = append(b.ids, id)
	if b.index != nil {
		b.index[key] = k
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
		b.probes++
		_, ok := b.held[id]
		return ok
	}
	for _, have := range b.ids {
		b.probes++
		if have == id {
			return true
		}
	}
	return false
}
