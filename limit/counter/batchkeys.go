package counter

// linearDedup is the batch size up to which a batch's keys are told apart by
// comparing them with each other (no allocation); larger batches use a map,
// so that grouping a batch costs time linear in its size.
const linearDedup = maxBatchOnStack

// batchKeys is the set of distinct keys of one batch, in the order of first
// use: what groups a batch's updates by counter, and what eviction skips
// while the batch is stored.
type batchKeys struct {
	names []string
	index map[string]int // name -> index in names; nil up to linearDedup updates
	// probes counts key comparisons and map look-ups, so that tests can
	// check that the work is linear in the batch size.
	probes int
}

// newBatchKeys returns an empty set for a batch of n updates, keeping the
// names in names' storage.
func newBatchKeys(n int, names []string) batchKeys {
	b := batchKeys{names: names[:0]}
	if n > linearDedup {
		b.index = make(map[string]int, n)
	}
	return b
}

// find returns the index of key among the distinct keys, or -1. A new key
// is added by appending it to names and, with an index, to the index (see
// MemoryStore.group).
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

// holds reports whether key is one of the batch's keys. A nil b holds
// nothing.
func (b *batchKeys) holds(key []byte) bool {
	if b == nil {
		return false
	}
	if b.index != nil {
		b.probes++
		_, ok := b.index[string(key)]
		return ok
	}
	for _, name := range b.names {
		b.probes++
		if name == string(key) {
			return true
		}
	}
	return false
}
