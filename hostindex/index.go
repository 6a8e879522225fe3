package hostindex

import "strings"

// Index maps hostname patterns to lists of values and finds the patterns matching a host.
//
// The zero value is an empty index ready to use; [New] returns one as a pointer. Build an
// Index with [Index.Add], then look hosts up: any number of goroutines may call
// [Index.Lookup], [Index.Walk] and [Index.Len] concurrently once no Add is in progress. Add
// must not run concurrently with any other method.
type Index[V any] struct {
	root     node[V] // depth 0; its wild entry holds the pattern "*"
	patterns int     // number of distinct patterns
}

// node is one label of the trie over reversed DNS labels: the node reached from the root
// through "com" then "example" stands for the suffix "example.com".
type node[V any] struct {
	children map[string]*node[V] // by lower-case label
	exact    *Match[V]           // the pattern equal to this node's suffix, or nil
	wild     *Match[V]           // the pattern "*." + this node's suffix, or nil
}

// Match is one pattern that matched a host, with the values added for it.
type Match[V any] struct {
	// Pattern is the normalised pattern: lower-case, without a trailing dot.
	Pattern string
	// Values holds the values added for Pattern, in insertion order. Callers must not
	// modify its elements; appending to it does not affect the Index.
	Values []V
}

// New returns an empty Index. It is the same as new(Index[V]).
func New[V any]() *Index[V] {
	return new(Index[V])
}

// Add appends v to the values of pattern. A pattern is an exact hostname
// ("api.example.com"), a Gateway API wildcard ("*.example.com") or "*" alone, as described
// by [ValidatePattern]. Patterns are normalised (ASCII lower-cased, one trailing dot
// removed), so "API.example.com." and "api.example.com" are the same pattern. An invalid
// pattern leaves the Index unchanged and returns an error naming the pattern and the
// reason.
func (ix *Index[V]) Add(pattern string, v V) error {
	p, err := normalizePattern(pattern)
	if err != nil {
		return err
	}
	n := &ix.root
	name, wildcard := p, false
	if p == "*" {
		name, wildcard = "", true
	} else if rest, ok := strings.CutPrefix(p, "*."); ok {
		name, wildcard = rest, true
	}
	for end := len(name); end > 0; {
		dot := strings.LastIndexByte(name[:end], '.')
		label := name[dot+1 : end]
		child := n.children[label]
		if child == nil {
			if n.children == nil {
				n.children = make(map[string]*node[V])
			}
			child = new(node[V])
			n.children[label] = child
		}
		n, end = child, dot
	}
	slot := &n.exact
	if wildcard {
		slot = &n.wild
	}
	if *slot == nil {
		*slot = &Match[V]{Pattern: p}
		ix.patterns++
	}
	(*slot).Values = append((*slot).Values, v)
	return nil
}

// Len returns the number of distinct patterns in the Index.
func (ix *Index[V]) Len() int {
	return ix.patterns
}
