package hostindex

import "strings"

// maxDepth bounds the depth of the trie: a valid pattern of at most maxNameLen bytes has at
// most 127 labels ("a.a. ... .a"), so no lookup descends further, whatever the host.
const maxDepth = (maxNameLen + 1) / 2

// wildStack holds the wildcard matches met while descending, least specific first: "*" and
// at most one wildcard per level below the root.
type wildStack[V any] struct {
	m [maxDepth + 1]*Match[V]
	n int
}

// Lookup returns the most specific pattern matching host, a Host header value as a client
// sends it (any case, with or without a port, IPv6 brackets or a trailing dot). The order
// is that of [Index.Walk]. It reports false when no pattern matches. It does not allocate.
func (ix *Index[V]) Lookup(host string) (Match[V], bool) {
	exact, wild := ix.descend(host, nil)
	if exact != nil {
		return exact.result(), true
	}
	if wild != nil {
		return wild.result(), true
	}
	return Match[V]{}, false
}

// Walk calls fn for every pattern matching host, from the most specific to the least,
// until fn returns false: first the exact pattern, then the wildcards from the longest
// suffix to the shortest, then "*". host is a Host header value as for [Index.Lookup]. Walk
// does not allocate and does not retain fn, so a closure passed to it can stay on the
// caller's stack.
func (ix *Index[V]) Walk(host string, fn func(Match[V]) bool) {
	var wild wildStack[V]
	exact, _ := ix.descend(host, &wild)
	if exact != nil && !fn(exact.result()) {
		return
	}
	for i := wild.n - 1; i >= 0; i-- {
		if !fn(wild.m[i].result()) {
			return
		}
	}
}

// descend follows host's labels from the rightmost one down the trie as far as the trie
// goes. It returns the exact match (nil if none) and the most specific wildcard match (nil
// if none); when all is not nil it also collects every wildcard match into it, least
// specific first.
func (ix *Index[V]) descend(host string, all *wildStack[V]) (exact, best *Match[V]) {
	h := TrimHost(host)
	n := &ix.root
	best = n.wild
	if best != nil && all != nil {
		all.m[0], all.n = best, 1
	}
	for end := len(h); ; {
		dot := strings.LastIndexByte(h[:end], '.')
		n = n.child(h[dot+1 : end])
		if n == nil {
			return nil, best
		}
		if dot < 0 { // the whole host is consumed: it equals n's suffix
			return n.exact, best
		}
		// "*." + suffix matches when at least one byte precedes the dot before the suffix.
		if n.wild != nil && dot > 0 {
			best = n.wild
			if all != nil {
				all.m[all.n] = best
				all.n++
			}
		}
		end = dot
	}
}

// child returns n's child for label, folding ASCII letters to lower case, or nil if there
// is none. A label longer than any valid one has no child.
func (n *node[V]) child(label string) *node[V] {
	if len(label) > maxLabelLen || n.children == nil {
		return nil
	}
	var buf [maxLabelLen]byte
	for i := 0; i < len(label); i++ {
		c := label[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return n.children[string(buf[:len(label)])] // no allocation for a map index
}

// result returns m with Values capped at their length, so that a caller's append cannot
// write into the Index's spare capacity.
func (m *Match[V]) result() Match[V] {
	return Match[V]{Pattern: m.Pattern, Values: m.Values[:len(m.Values):len(m.Values)]}
}
