package yamljson

import (
	yaml "go.yaml.in/yaml/v3"
)

// keySet remembers the keys of one mapping and the line of each.
type keySet struct {
	keys  []string
	lines []int
	index map[string]int // built once there are more than indexThreshold keys
}

// lookup returns the line of key, if the set holds it.
func (s *keySet) lookup(key string) (line int, ok bool) {
	if s.index != nil {
		i, ok := s.index[key]
		if !ok {
			return 0, false
		}
		return s.lines[i], true
	}
	for i, k := range s.keys {
		if k == key {
			return s.lines[i], true
		}
	}
	return 0, false
}

// add puts a key the set does not hold.
func (s *keySet) add(key string, line int) {
	s.keys = append(s.keys, key)
	s.lines = append(s.lines, line)
	switch {
	case s.index != nil:
		s.index[key] = len(s.keys) - 1
	case len(s.keys) > indexThreshold:
		s.index = make(map[string]int, 2*len(s.keys))
		for i, k := range s.keys {
			s.index[k] = i
		}
	}
}

// isMergeKey reports whether k is the merge key: a plain "<<" or "!!merge <<".
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == tagMerge
}

// What the first pass over a mapping found for each key.
const (
	keyPlain = iota // an ordinary key, kept
	keyMerge        // the merge key
	keyBad          // an error was reported; the value is checked but dropped
)

// mapping converts a mapping node. Keys keep their order; the fields a merge
// key brings in take its place, except keys the mapping sets itself or an
// earlier merged mapping already brought.
func (b *builder) mapping(n *yaml.Node) *value {
	pairs := len(n.Content) / 2
	keys := make([]string, pairs)
	state := make([]uint8, pairs)
	var seen keySet
	mergeLine := 0
	for i := range pairs {
		k := n.Content[2*i]
		if isMergeKey(k) {
			if mergeLine != 0 {
				b.fail(k.Line, "duplicate key %q (first at line %d)", "<<", mergeLine)
				state[i] = keyBad
				continue
			}
			mergeLine, state[i] = k.Line, keyMerge
			continue
		}
		key, ok := b.key(k)
		if !ok {
			state[i] = keyBad
			continue
		}
		if first, dup := seen.lookup(key); dup {
			b.fail(k.Line, "duplicate key %q (first at line %d)", key, first)
			state[i] = keyBad
			continue
		}
		seen.add(key, k.Line)
		keys[i] = key
	}

	v := newCollection(mapKind)
	v.fields = make([]field, 0, pairs)
	for i := range pairs {
		k, c := n.Content[2*i], n.Content[2*i+1]
		switch state[i] {
		case keyBad:
			b.visit(c) // for the problems inside it
		case keyMerge:
			b.merge(v, k.Line, c, &seen)
		default:
			cv, copied := b.visit(c)
			v.appendField(field{key: keys[i], line: k.Line, v: cv}, copied)
			b.checkLimits(v, k.Line)
		}
		if b.stopped {
			break
		}
	}
	v.buildIndex()
	return v
}

// key returns the JSON key for a mapping key node: a scalar in its JSON form,
// strings unquoted ("1", "true", "null", "name").
func (b *builder) key(k *yaml.Node) (string, bool) {
	n := k
	if k.Kind == yaml.AliasNode {
		if a := b.anchors[k.Alias]; a != nil && a.doc != b.doc {
			b.fail(k.Line, "alias *%s refers to an anchor in document %d; anchors do not reach across documents", k.Value, a.doc)
			return "", false
		}
		n = k.Alias
	} else if k.Anchor != "" && b.anchors[k] == nil {
		b.anchors[k] = &anchored{doc: b.doc}
	}
	if n == nil {
		b.fail(k.Line, "alias *%s refers to no anchor", k.Value)
		return "", false
	}
	switch n.Kind {
	case yaml.MappingNode:
		b.fail(k.Line, "a mapping cannot be a mapping key; JSON keys are strings")
		return "", false
	case yaml.SequenceNode:
		b.fail(k.Line, "a sequence cannot be a mapping key; JSON keys are strings")
		return "", false
	case yaml.ScalarNode:
	default:
		b.fail(k.Line, "unexpected YAML node kind %d as a mapping key", n.Kind)
		return "", false
	}
	s, problem := resolveScalar(n)
	if problem != "" {
		b.fail(k.Line, "%s", problem)
		return "", false
	}
	return s.text, true
}

// merge adds to v the fields of the mapping, or mappings, that the merge key
// written at line names with its value c, skipping keys already in seen (and
// adding those it takes). Earlier mappings of a sequence win over later ones.
func (b *builder) merge(v *value, line int, c *yaml.Node, seen *keySet) {
	target := c
	if c.Kind == yaml.AliasNode && c.Alias != nil {
		target = c.Alias
	}
	src, _ := b.visit(c)
	switch {
	case target.Kind == yaml.MappingNode:
		b.mergeFields(v, line, src, seen)
	case target.Kind == yaml.SequenceNode:
		for i, e := range target.Content {
			if e.Kind == yaml.AliasNode && e.Alias != nil {
				e = e.Alias
			}
			if e.Kind != yaml.MappingNode {
				b.fail(target.Content[i].Line, "a merge key takes a mapping or a sequence of mappings, not a sequence holding a %s", kindName(e.Kind))
				continue
			}
			if src.kind == seqKind && i < len(src.items) {
				b.mergeFields(v, line, src.items[i].v, seen)
			}
		}
	default:
		b.fail(c.Line, "a merge key takes a mapping or a sequence of mappings, not a %s", kindName(target.Kind))
	}
}

// mergeFields adds the fields of src not yet in seen to v, for the merge key
// written at line.
func (b *builder) mergeFields(v *value, line int, src *value, seen *keySet) {
	if src.kind != mapKind {
		return // src could not be converted; that was reported
	}
	for _, f := range src.fields {
		if _, ok := seen.lookup(f.key); ok {
			continue
		}
		seen.add(f.key, f.line)
		v.appendField(f, true)
		if b.checkLimits(v, line); b.stopped {
			return
		}
	}
}

// kindName names a node kind in messages.
func kindName(k yaml.Kind) string {
	switch k {
	case yaml.ScalarNode:
		return "scalar"
	case yaml.SequenceNode:
		return "sequence"
	case yaml.MappingNode:
		return "mapping"
	case yaml.AliasNode:
		return "alias"
	}
	return "document"
}
