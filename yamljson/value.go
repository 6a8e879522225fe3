package yamljson

// kind is the JSON shape of a value.
type kind uint8

const (
	scalarKind kind = iota
	seqKind
	mapKind
)

// value is a converted YAML node. Aliases share the value of their anchor and
// merge keys share the values of the merged mappings, so values form a DAG
// whose expansion is the JSON document. The same DAG, with the lines kept in
// items and fields, is the index behind [Document.Line].
type value struct {
	kind   kind
	text   string         // scalarKind: the JSON text
	items  []item         // seqKind
	fields []field        // mapKind, in output order, merged keys included
	index  map[string]int // mapKind with many fields: key -> position in fields

	// Measures of the expanded value, saturating at maxCount.
	size       int64 // bytes of JSON
	nodes      int64 // values, this one included
	extraSize  int64 // bytes that aliases and merge keys copied in
	extraNodes int64 // values that aliases and merge keys copied in
	depth      int64 // collections nested, this one included; 0 for a scalar
}

// item is an element of a sequence.
type item struct {
	line int // where the element (or the alias standing for it) is written
	v    *value
}

// field is a key and its value in a mapping.
type field struct {
	key  string // the JSON key, unquoted
	line int    // where the key is written
	v    *value
}

// maxCount caps every measure of a value so that sums cannot overflow.
const maxCount = 1 << 60

// satAdd adds non-negative measures, stopping at maxCount.
func satAdd(a, b int64) int64 {
	if a+b > maxCount || a+b < 0 {
		return maxCount
	}
	return a + b
}

// newScalar makes a scalar value with the given JSON text.
func newScalar(text string) *value {
	return &value{kind: scalarKind, text: text, size: int64(len(text)), nodes: 1}
}

// newCollection makes an empty sequence or mapping.
func newCollection(k kind) *value {
	return &value{kind: k, size: 2, nodes: 1, depth: 1}
}

// addMeasures accounts for a child of collection p. keySize is the bytes the
// child adds besides its own JSON (comma, key, colon). copied says the child
// was reached through an alias or a merge key, so all of it, key included, is
// a copy.
func (p *value) addMeasures(c *value, keySize int64, copied bool) {
	sep := int64(0)
	if len(p.items)+len(p.fields) > 1 {
		sep = 1
	}
	own := satAdd(keySize, sep)
	p.size = satAdd(p.size, satAdd(own, c.size))
	p.nodes = satAdd(p.nodes, c.nodes)
	if copied {
		p.extraSize = satAdd(p.extraSize, satAdd(own, c.size))
		p.extraNodes = satAdd(p.extraNodes, c.nodes)
	} else {
		p.extraSize = satAdd(p.extraSize, c.extraSize)
		p.extraNodes = satAdd(p.extraNodes, c.extraNodes)
	}
	p.depth = max(p.depth, satAdd(c.depth, 1))
}

// appendItem adds an element to sequence p.
func (p *value) appendItem(it item, copied bool) {
	p.items = append(p.items, it)
	p.addMeasures(it.v, 0, copied)
}

// appendField adds a field to mapping p.
func (p *value) appendField(f field, copied bool) {
	p.fields = append(p.fields, f)
	p.addMeasures(f.v, stringLen(f.key)+1, copied)
}

// indexThreshold is the number of fields above which a mapping keeps a map
// from key to field; smaller mappings are scanned.
const indexThreshold = 8

// find returns the position of key among p's fields, or -1.
func (p *value) find(key string) int {
	if p.index != nil {
		if i, ok := p.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range p.fields {
		if p.fields[i].key == key {
			return i
		}
	}
	return -1
}

// buildIndex makes the key map of a large mapping once its fields are final.
func (p *value) buildIndex() {
	if len(p.fields) <= indexThreshold {
		return
	}
	p.index = make(map[string]int, len(p.fields))
	for i, f := range p.fields {
		p.index[f.key] = i
	}
}
