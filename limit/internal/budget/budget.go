// Package budget is a map of string keys held within a byte budget, the memory of the
// caches in front of limit's stores (limit/overlimitcache, limit/redis/refcount).
package budget

import "strings"

// Expiring is a value that tells whether it has expired at an instant, in the unit its
// user keeps time in.
type Expiring interface {
	ExpiredAt(now int64) bool
}

// Map holds values under string keys, each entry costing its key's length plus an
// overhead in a byte budget. When a new entry does not fit, Put removes the expired
// entries, then arbitrary ones until the entries take at most seven eighths of the budget
// less the new entry: the map is scanned once for every eighth of its budget that new
// entries take, not once per entry, so remembering a key costs constant work however large
// the budget. Create it with New; it is not safe for concurrent use.
type Map[V Expiring] struct {
	// Entries are the values by key. Callers read them, and change the value of a key
	// held with Put; they add and delete entries only with Put and Remove.
	Entries map[string]V
	// Visited counts the entries looked at while making room.
	Visited int

	budget, overhead, used int
}

// New returns an empty Map of budget bytes charging overhead bytes per entry beyond its
// key's.
func New[V Expiring](budget, overhead int) Map[V] {
	return Map[V]{Entries: map[string]V{}, budget: budget, overhead: overhead}
}

// Used returns the bytes the entries take.
func (m *Map[V]) Used() int { return m.used }

// Put holds v under a copy of key (the caller's key may alias its buffer), making room at
// now first when the entry is new and does not fit. An entry larger than the whole budget
// is not held.
func (m *Map[V]) Put(key string, v V, now int64) {
	size := len(key) + m.overhead
	if size > m.budget {
		return
	}
	if _, ok := m.Entries[key]; ok {
		// Assigning to an existing string key stores the key given: a copy again.
		m.Entries[strings.Clone(key)] = v
		return
	}
	if m.used+size > m.budget {
		m.makeRoom(size, now)
	}
	m.Entries[strings.Clone(key)] = v
	m.used += size
}

// makeRoom frees the budget for an entry of size bytes (see Map).
func (m *Map[V]) makeRoom(size int, now int64) {
	target := max(m.budget-m.budget/8-size, 0)
	for k, v := range m.Entries {
		m.Visited++
		if v.ExpiredAt(now) {
			m.Remove(k)
		}
	}
	for k := range m.Entries {
		if m.used <= target {
			break
		}
		m.Visited++
		m.Remove(k)
	}
}

// Remove deletes the entry of key, if any.
func (m *Map[V]) Remove(key string) {
	if _, ok := m.Entries[key]; ok {
		delete(m.Entries, key)
		m.used -= len(key) + m.overhead
	}
}
