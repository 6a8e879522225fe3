// Package keyset tells apart the distinct keys of one batch of counter updates, in the
// order of first use, for the memory and cached Redis stores: by comparing keys with each
// other up to a small batch size (no allocation, the storage the caller gives), with a map
// above it, so that grouping a batch costs time linear in its size.
package keyset

// Set is the distinct keys of one batch, in the order of first use.
type Set struct {
	// Names are the distinct keys; a key's index here is its index in the set.
	Names []string
	// Index maps a name to its index in Names; nil for batches of up to the linear size.
	// Whoever appends to Names also records the new name here when Index is not nil.
	Index map[string]int
	// Probes counts key comparisons and map look-ups, so that tests can check that the
	// work is linear in the batch size.
	Probes int
}

// New returns an empty set for a batch of n updates, keeping the names in names'
// storage, with an index when n is above linear.
func New(n, linear int, names []string) Set {
	s := Set{Names: names[:0]}
	if n > linear {
		s.Index = make(map[string]int, n)
	}
	return s
}

// Find returns the index of key among the distinct keys, or -1.
func (s *Set) Find(key string) int {
	if s.Index != nil {
		s.Probes++
		if k, ok := s.Index[key]; ok {
			return k
		}
		return -1
	}
	for k, name := range s.Names {
		s.Probes++
		if name == key {
			return k
		}
	}
	return -1
}
