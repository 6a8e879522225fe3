package cached

// keyGroups tells apart the distinct keys of one batch, in the order of
// first use: by comparing them with each other up to maxLocalBatch updates
// (on decide's stack), with a map above, so that grouping a batch costs
// time linear in its size while the store's mutex is held.
type keyGroups struct {
	names []string
	index map[string]int // name -> index in names; nil up to maxLocalBatch updates
	// probes counts key comparisons and map look-ups, so that tests can
	// check that the work is linear in the batch size.
	probes int
}

// newKeyGroups returns an empty set for a batch of n updates, keeping the
// names in names' storage.
func newKeyGroups(n int, names []string) keyGroups {
	g := keyGroups{names: names[:0]}
	if n > maxLocalBatch {
		g.index = make(map[string]int, n)
	}
	return g
}

// find returns the index of key among the distinct keys, or -1. The caller
// adds a new key to names and, with an index, to the index.
func (g *keyGroups) find(key string) int {
	if g.index != nil {
		g.probes++
		if k, ok := g.index[key]; ok {
			return k
		}
		return -1
	}
	for k, name := range g.names {
		g.probes++
		if name == key {
			return k
		}
	}
	return -1
}
