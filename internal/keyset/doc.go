// Package keyset keeps a bounded set of keys, each with a value: the
// statistics of a server whose keys embed values its clients choose.
//
// A Set holds at most the number of keys given to New. Time is cut into periods by Tick. A new
// key that finds the set full takes the slot of the least recently used
// key among those unused for a whole period; when every key was used in
// the current or the previous period, it is refused, and its caller counts
// it elsewhere (one overflow series). So the keys in use keep their slots
// and a burst of new keys cannot push them out, while a key that stops
// being used gives its slot back after one to two periods: a pure LRU
// would let a client sending random values evict every real key, and
// every exporter downstream would see a new series per value.
//
// Lookups of a key present take no lock (a sync.Map and atomics), nor does
// refusing a new key once the set is found full, until the next Tick;
// adding and evicting take the set's lock, and Tick scans the set once. A
// value is held between Acquire and Release and is never evicted while
// held, so the eviction callback sees every change made to it.
package keyset
