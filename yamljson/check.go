package yamljson

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// CheckSize returns an *Error when data is larger than the limit on every
// input (inputlimit.MaxBytes); Convert calls it first. Readers that parse
// YAML into yaml.Node trees themselves call it before parsing.
func CheckSize(data []byte) error {
	if len(data) <= inputlimit.MaxBytes {
		return nil
	}
	return &Error{Msg: fmt.Sprintf("the input's %d bytes exceed the limit of %d bytes (%d MiB)", len(data), inputlimit.MaxBytes, inputlimit.MaxBytes>>20)}
}

// CheckNode applies Convert's limits to a yaml.Node tree that a reader
// walks itself, following aliases: it returns an *Error, with the line of
// the alias or collection where a limit is crossed, when aliases and merge
// keys would add more than inputlimit.MaxAliasValues values or
// inputlimit.MaxAliasBytes bytes of scalar text, when collections nest more
// than inputlimit.MaxDepth deep counting what aliases bring in, or when an
// alias refers to a node that contains it (a walk that follows it never
// ends). It visits each written node once, whatever the aliases expand to.
func CheckNode(n *yaml.Node) error {
	c := &nodeChecker{memo: make(map[*yaml.Node]*nodeMeasure)}
	c.walk(n, 0)
	if c.err == nil {
		return nil
	}
	return c.err
}

// nodeMeasure is the expansion of a node: values, bytes of scalar text, and
// the collections nested in it, this one included. Each saturates at
// maxCount.
type nodeMeasure struct {
	values, bytes, height int64
	building              bool // being measured: an alias to it is a cycle
}

// nodeChecker walks one tree; err is the first limit crossed.
type nodeChecker struct {
	memo                   map[*yaml.Node]*nodeMeasure
	extraValues, extraText int64
	err                    *Error
}

func (c *nodeChecker) fail(line int, format string, args ...any) {
	if c.err == nil {
		c.err = &Error{Line: line, Msg: fmt.Sprintf(format, args...)}
	}
}

// walk visits the written nodes under n, at depth (collections above n),
// counting what each alias adds.
func (c *nodeChecker) walk(n *yaml.Node, depth int64) {
	if n == nil || c.err != nil {
		return
	}
	if n.Kind == yaml.AliasNode {
		m := c.measure(n)
		if c.err != nil {
			return
		}
		c.extraValues = satAdd(c.extraValues, m.values)
		c.extraText = satAdd(c.extraText, m.bytes)
		switch {
		case c.extraValues > maxExpandedNodes:
			c.fail(n.Line, "aliases and merge keys expand the document by more than %d values", maxExpandedNodes)
		case c.extraText > maxExpandedBytes:
			c.fail(n.Line, "aliases and merge keys expand the document by more than %d bytes", maxExpandedBytes)
		case depth+m.height > maxDepth:
			c.fail(n.Line, "collections nest more than %d deep", maxDepth)
		}
		return
	}
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		if depth++; depth > maxDepth {
			c.fail(n.Line, "collections nest more than %d deep", maxDepth)
			return
		}
	}
	if n.Anchor != "" {
		c.measure(n) // so that an alias inside n to n is seen as a cycle
		if c.err != nil {
			return
		}
	}
	for _, ch := range n.Content {
		c.walk(ch, depth)
	}
}

// measure returns the expansion of n: values (keys of mappings are not
// counted, as in Convert), bytes of scalar text (keys included) and height.
// Anchored nodes, the only ones aliases reach, are measured once.
func (c *nodeChecker) measure(n *yaml.Node) *nodeMeasure {
	if n == nil || c.err != nil {
		return &nodeMeasure{}
	}
	if n.Kind == yaml.AliasNode {
		if m := c.memo[n.Alias]; m != nil && m.building {
			c.fail(n.Line, "alias *%s refers to a node that contains it", n.Value)
			return m
		}
		return c.measure(n.Alias)
	}
	if m := c.memo[n]; m != nil {
		return m
	}
	m := &nodeMeasure{values: 1}
	if n.Kind == yaml.ScalarNode {
		m.bytes = int64(len(n.Value))
		return m
	}
	if n.Anchor != "" {
		m.building = true
		c.memo[n] = m
		defer func() { m.building = false }()
	}
	for i, ch := range n.Content {
		t := c.measure(ch)
		if c.err != nil {
			return m
		}
		if n.Kind != yaml.MappingNode || i%2 == 1 {
			m.values = satAdd(m.values, t.values)
		}
		m.bytes = satAdd(m.bytes, t.bytes)
		m.height = max(m.height, t.height)
	}
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		m.height = min(m.height+1, maxCount)
	}
	return m
}
