package limit

import (
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
)

// activation is what the limits of one request read: the request's
// descriptors, through the legacy merged view (lookup) and through CEL's
// descriptors, and, in CEL, the limit being evaluated. It records which
// descriptors a limit read, to attribute the limit to them.
//
// A descriptor with a limit override is limited by it alone: its entries
// are hidden from the configured limits (to CEL it is an empty map, so that
// indexes keep their meaning).
type activation struct {
	descs []Descriptor
	list  ref.Val   // descriptors, built on first use
	reads []bool    // per descriptor: read since resetReads
	limit ref.Val   // the limit being evaluated, for CEL
	maps  []descMap // the elements of list
	vals  []ref.Val
}

var _ interpreter.Activation = (*activation)(nil)

// reset prepares a for a request.
func (a *activation) reset(descs []Descriptor) {
	a.descs = descs
	a.list = nil
	a.limit = nil
	clear(a.maps)
	clear(a.vals)
	a.maps, a.vals = a.maps[:0], a.vals[:0]
	if cap(a.reads) < len(descs) {
		a.reads = make([]bool, len(descs))
	}
	a.reads = a.reads[:len(descs)]
	clear(a.reads)
}

// resetReads forgets what was read, before evaluating another limit.
func (a *activation) resetReads() { clear(a.reads) }

// visible reports whether configured limits see descriptor i.
func (a *activation) visible(i int) bool {
	return !a.descs[i].hasOverride()
}

// lookup returns the value of key in the entries of all visible
// descriptors merged into one map, a later entry winning (limitador 1.x),
// and marks the descriptor it came from as read.
func (a *activation) lookup(key string) (string, bool) {
	for i := len(a.descs) - 1; i >= 0; i-- {
		if !a.visible(i) {
			continue
		}
		if v, ok := lookup(a.descs[i].Entries, key); ok {
			a.reads[i] = true
			return v, true
		}
	}
	return "", false
}

// ResolveName resolves descriptors and limit; nothing else is bound.
func (a *activation) ResolveName(name string) (any, bool) {
	switch name {
	case "descriptors":
		if a.list == nil {
			a.build()
		}
		return a.list, true
	case "limit":
		if a.limit == nil {
			return nil, false
		}
		return a.limit, true
	}
	return nil, false
}

// Parent returns nil: the activation has no parent.
func (a *activation) Parent() interpreter.Activation { return nil }

// build makes the descriptors list: one string map per descriptor, a
// repeated key's last entry winning.
func (a *activation) build() {
	for i := range a.descs {
		var m map[string]string
		if a.visible(i) {
			m = make(map[string]string, len(a.descs[i].Entries))
			for _, e := range a.descs[i].Entries {
				m[e.Key] = e.Value
			}
		}
		a.maps = append(a.maps, descMap{Mapper: types.NewStringStringMap(types.DefaultTypeAdapter, m), a: a, i: i})
	}
	for i := range a.maps {
		a.vals = append(a.vals, &a.maps[i])
	}
	a.list = types.NewRefValList(types.DefaultTypeAdapter, a.vals)
}

// descMap is one descriptor's map that marks the descriptor as read when
// any of its entries is looked at.
type descMap struct {
	traits.Mapper
	a *activation
	i int
}

func (m *descMap) read() { m.a.reads[m.i] = true }

// Find marks the descriptor as read and looks key up.
func (m *descMap) Find(key ref.Val) (ref.Val, bool) { m.read(); return m.Mapper.Find(key) }

// Get marks the descriptor as read and looks key up.
func (m *descMap) Get(key ref.Val) ref.Val { m.read(); return m.Mapper.Get(key) }

// Contains marks the descriptor as read and tests key.
func (m *descMap) Contains(key ref.Val) ref.Val { m.read(); return m.Mapper.Contains(key) }

// Iterator marks the descriptor as read and iterates its keys.
func (m *descMap) Iterator() traits.Iterator { m.read(); return m.Mapper.Iterator() }

// Size marks the descriptor as read and counts its entries.
func (m *descMap) Size() ref.Val { m.read(); return m.Mapper.Size() }

// Equal marks the descriptor as read and compares it.
func (m *descMap) Equal(other ref.Val) ref.Val {
	m.read()
	if o, ok := other.(*descMap); ok {
		o.read()
		other = o.Mapper
	}
	return m.Mapper.Equal(other)
}
