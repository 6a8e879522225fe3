package yamljson

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// Limits on what aliases and merge keys may add to a document, and on its
// nesting: rlpkit's limits on every input, stated in package inputlimit.
// They stop "billion laughs" documents, whose few lines expand into
// gigabytes, before any of it is written.
const (
	maxExpandedNodes = inputlimit.MaxAliasValues
	maxExpandedBytes = inputlimit.MaxAliasBytes
	maxDepth         = inputlimit.MaxDepth
)

// builder converts the nodes of one stream into values, one document at a
// time. It is used by one goroutine.
type builder struct {
	doc     int // Index of the document being converted
	errs    []*Error
	anchors map[*yaml.Node]*anchored // every anchored node converted so far
	stopped bool                     // a limit was hit; the rest of the document is skipped
}

// anchored records the conversion of an anchored node.
type anchored struct {
	doc      int    // the document holding the node
	v        *value // nil while building, or for a key not yet converted as a value
	building bool   // the node is being converted: an alias to it is a cycle
}

// fail records a problem at a line of the current document.
func (b *builder) fail(line int, format string, args ...any) {
	b.errs = append(b.errs, &Error{Doc: b.doc, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// placeholder stands for a node that could not be converted, so that the rest
// of the document can still be checked.
func placeholder() *value { return newScalar("null") }

// visit converts n. copied reports that n is an alias, so its value is a copy
// of a value converted elsewhere.
func (b *builder) visit(n *yaml.Node) (v *value, copied bool) {
	if b.stopped {
		return placeholder(), false
	}
	if n.Kind == yaml.AliasNode {
		return b.alias(n), true
	}
	if n.Anchor == "" {
		return b.build(n), false
	}
	a := &anchored{doc: b.doc, building: true}
	b.anchors[n] = a
	a.v = b.build(n)
	a.building = false
	return a.v, false
}

// alias returns the value of the node an alias refers to.
func (b *builder) alias(n *yaml.Node) *value {
	t := n.Alias
	if t == nil {
		b.fail(n.Line, "alias *%s refers to no anchor", n.Value)
		return placeholder()
	}
	a := b.anchors[t]
	switch {
	case a != nil && a.doc != b.doc:
		b.fail(n.Line, "alias *%s refers to an anchor in document %d; anchors do not reach across documents", n.Value, a.doc)
		return placeholder()
	case a != nil && a.building:
		b.fail(n.Line, "alias *%s refers to a node that contains it", n.Value)
		return placeholder()
	case a != nil && a.v != nil:
		return a.v
	}
	// An anchored mapping key, now used as a value.
	v, _ := b.visit(t)
	return v
}

// build converts a node that is not an alias.
func (b *builder) build(n *yaml.Node) *value {
	switch n.Kind {
	case yaml.ScalarNode:
		return b.scalar(n)
	case yaml.SequenceNode:
		if !b.collectionTag(n, tagSeq) {
			return placeholder()
		}
		return b.sequence(n)
	case yaml.MappingNode:
		if !b.collectionTag(n, tagMap) {
			return placeholder()
		}
		return b.mapping(n)
	}
	b.fail(n.Line, "unexpected YAML node kind %d", n.Kind)
	return placeholder()
}

// collectionTag checks that a collection carries no tag but its own.
func (b *builder) collectionTag(n *yaml.Node, want string) bool {
	if tag := n.ShortTag(); tag != want {
		b.fail(n.Line, "tag %s cannot be represented in JSON", tag)
		return false
	}
	return true
}

// scalar converts a scalar node.
func (b *builder) scalar(n *yaml.Node) *value {
	s, problem := resolveScalar(n)
	switch {
	case problem != "":
		b.fail(n.Line, "%s", problem)
		return placeholder()
	case s.typ == typeNonFinite:
		b.fail(n.Line, "%s is not a finite number; JSON cannot represent it", s.text)
		return placeholder()
	case s.typ == typeString:
		return newScalar(quote(s.text))
	}
	return newScalar(s.text)
}

// sequence converts a sequence node, one item per element.
func (b *builder) sequence(n *yaml.Node) *value {
	v := newCollection(seqKind)
	v.items = make([]item, 0, len(n.Content))
	for _, c := range n.Content {
		cv, copied := b.visit(c)
		v.appendItem(item{line: c.Line, v: cv}, copied)
		if b.checkLimits(v, c.Line); b.stopped {
			break
		}
	}
	return v
}

// checkLimits stops the document when v, just grown by an element written at
// line, exceeds a limit.
func (b *builder) checkLimits(v *value, line int) {
	if b.stopped {
		return
	}
	switch {
	case v.extraNodes > maxExpandedNodes:
		b.fail(line, "aliases and merge keys expand the document by more than %d values", maxExpandedNodes)
	case v.extraSize > maxExpandedBytes:
		b.fail(line, "aliases and merge keys expand the document by more than %d bytes of JSON", maxExpandedBytes)
	case v.depth > maxDepth:
		b.fail(line, "collections nest more than %d deep", maxDepth)
	default:
		return
	}
	b.stopped = true
}
