package limitador

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/interpreter"
	"github.com/rlpkit/rlpkit/rlsmsg"
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
	descs []rlsmsg.Descriptor
	list  ref.Val   // descriptors, built on first use
	reads []bool    // per descriptor: read since resetReads
	limit ref.Val   // the limit being evaluated, for CEL
	maps  []descMap // the elements of list
	vals  []ref.Val
}

var _ interpreter.Activation = (*activation)(nil)

// reset prepares a for a request.
func (a *activation) reset(descs []rlsmsg.Descriptor) {
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
	return !hasOverride(&a.descs[i])
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

// build makes the descriptors list: one map per descriptor, looked up in
// its entries directly (a repeated key's last entry winning), the Go map
// behind it made only when a CEL expression iterates, sizes or compares it.
func (a *activation) build() {
	for i := range a.descs {
		a.maps = append(a.maps, descMap{a: a, i: i})
	}
	for i := range a.maps {
		a.vals = append(a.vals, &a.maps[i])
	}
	a.list = types.NewRefValList(types.DefaultTypeAdapter, a.vals)
}

// descMap is one descriptor as a CEL map(string, string). It marks the
// descriptor as read when any of its entries is looked at.
type descMap struct {
	a    *activation
	i    int
	full traits.Mapper // built on first use by mapper
}

var _ traits.Mapper = (*descMap)(nil)

func (m *descMap) read() { m.a.reads[m.i] = true }

// entries returns the descriptor's entries, none when configured limits do
// not see it.
func (m *descMap) entries() []rlsmsg.Entry {
	if !m.a.visible(m.i) {
		return nil
	}
	return m.a.descs[m.i].Entries
}

// mapper returns the descriptor as a cel-go map.
func (m *descMap) mapper() traits.Mapper {
	if m.full == nil {
		es := m.entries()
		g := make(map[string]string, len(es))
		for _, e := range es {
			g[e.Key] = e.Value
		}
		m.full = types.NewStringStringMap(types.DefaultTypeAdapter, g)
	}
	return m.full
}

// Find marks the descriptor as read and looks key up.
func (m *descMap) Find(key ref.Val) (ref.Val, bool) {
	m.read()
	k, ok := key.(types.String)
	if !ok {
		return m.mapper().Find(key)
	}
	if v, ok := lookup(m.entries(), string(k)); ok {
		return types.String(v), true
	}
	return nil, false
}

// Get marks the descriptor as read and looks key up; a missing key is an
// error.
func (m *descMap) Get(key ref.Val) ref.Val {
	if v, ok := m.Find(key); ok {
		return v
	}
	return m.mapper().Get(key)
}

// Contains marks the descriptor as read and tests key.
func (m *descMap) Contains(key ref.Val) ref.Val {
	if _, ok := m.Find(key); ok {
		return types.True
	}
	return m.mapper().Contains(key)
}

// Iterator marks the descriptor as read and iterates its keys.
func (m *descMap) Iterator() traits.Iterator { m.read(); return m.mapper().Iterator() }

// Size marks the descriptor as read and counts its keys.
func (m *descMap) Size() ref.Val { m.read(); return m.mapper().Size() }

// Equal marks the descriptor as read and compares it.
func (m *descMap) Equal(other ref.Val) ref.Val {
	m.read()
	if o, ok := other.(*descMap); ok {
		o.read()
		other = o.mapper()
	}
	return m.mapper().Equal(other)
}

// ConvertToNative converts the descriptor's map.
func (m *descMap) ConvertToNative(typeDesc reflect.Type) (any, error) {
	m.read()
	return m.mapper().ConvertToNative(typeDesc)
}

// ConvertToType converts the descriptor's map.
func (m *descMap) ConvertToType(typeValue ref.Type) ref.Val {
	m.read()
	return m.mapper().ConvertToType(typeValue)
}

// Type returns the map type.
func (m *descMap) Type() ref.Type { return types.MapType }

// Value returns the descriptor's map.
func (m *descMap) Value() any { m.read(); return m.mapper().Value() }
