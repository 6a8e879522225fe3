package envoyxds

import (
	"sort"
	"strconv"
	"strings"
)

// atomKind is the kind of a pathAtom.
type atomKind uint8

const (
	atomAny    atomKind = iota // every path
	atomExact                  // the path equals value (query string ignored)
	atomPrefix                 // the path starts with value
)

// pathAtom is a condition on the request path that one Envoy RouteMatch path specifier
// expresses exactly: Envoy compares the path without its query string, as descriptor does.
type pathAtom struct {
	kind  atomKind
	value string
}

// rulePathAtom converts a rule path: exact, or a prefix when it ends in "*". A prefix of "/"
// is every path (requests Envoy routes always have a path starting with "/").
func rulePathAtom(p string) pathAtom {
	prefix, ok := strings.CutSuffix(p, "*")
	switch {
	case !ok:
		return pathAtom{kind: atomExact, value: p}
	case prefix == "/":
		return pathAtom{kind: atomAny}
	default:
		return pathAtom{kind: atomPrefix, value: prefix}
	}
}

// intersect returns the paths both atoms match, when that is one atom, and whether any path
// matches both. Two prefixes intersect only when one extends the other.
func (a pathAtom) intersect(b pathAtom) (pathAtom, bool) {
	switch {
	case a.kind == atomAny:
		return b, true
	case b.kind == atomAny:
		return a, true
	case a.kind == atomExact && b.kind == atomExact:
		return a, a.value == b.value
	case a.kind == atomExact:
		return a, strings.HasPrefix(a.value, b.value)
	case b.kind == atomExact:
		return b, strings.HasPrefix(b.value, a.value)
	case strings.HasPrefix(a.value, b.value):
		return a, true
	case strings.HasPrefix(b.value, a.value):
		return b, true
	}
	return pathAtom{}, false
}

// covers reports whether every path b matches is matched by a.
func (a pathAtom) covers(b pathAtom) bool {
	got, ok := a.intersect(b)
	return ok && got == b
}

// cell is a conjunction a route match expresses exactly: one path atom and one method ("" for
// any method).
type cell struct {
	path   pathAtom
	method string
}

func (c cell) intersect(d cell) (cell, bool) {
	p, ok := c.path.intersect(d.path)
	if !ok {
		return cell{}, false
	}
	switch {
	case c.method == "":
		return cell{path: p, method: d.method}, true
	case d.method == "" || d.method == c.method:
		return cell{path: p, method: c.method}, true
	}
	return cell{}, false
}

func (c cell) covers(d cell) bool {
	return c.path.covers(d.path) && (c.method == "" || c.method == d.method)
}

func (c cell) isAny() bool { return c.path.kind == atomAny && c.method == "" }

// cellSet is a union of cells, without duplicates or cells covered by others.
type cellSet []cell

// reduce returns the cells, in order, without duplicates and without the cells another one
// covers. It takes time quadratic in len(cells).
func reduce(cells []cell) cellSet {
	seen := make(map[cell]bool, len(cells))
	uniq := cells[:0:0]
	for _, c := range cells {
		if !seen[c] {
			seen[c] = true
			uniq = append(uniq, c)
		}
	}
	var out cellSet
	for i, c := range uniq {
		covered := false
		for j, d := range uniq {
			if i != j && d.covers(c) {
				covered = true // distinct cells never cover each other both ways
				break
			}
		}
		if !covered {
			out = append(out, c)
		}
	}
	return out
}

// coversCell reports whether one member covers c.
func (s cellSet) coversCell(c cell) bool {
	for _, m := range s {
		if m.covers(c) {
			return true
		}
	}
	return false
}

// outside returns the members of s that no member of t covers.
func (s cellSet) outside(t cellSet) cellSet {
	var out cellSet
	for _, c := range s {
		if !t.coversCell(c) {
			out = append(out, c)
		}
	}
	return out
}

// intersect returns the cells matching a request that both sets match, or false when there
// are more than limit of them before reduction: the work is bounded by limit squared.
func (s cellSet) intersect(t cellSet, limit int) (cellSet, bool) {
	var out []cell
	seen := make(map[cell]bool)
	for _, a := range s {
		for _, b := range t {
			if c, ok := a.intersect(b); ok && !seen[c] {
				if len(out) == limit {
					return nil, false
				}
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return reduce(out), true
}

// key identifies the set whatever the order of its cells, for grouping actions with the
// same conditions.
func (s cellSet) key() string {
	parts := make([]string, len(s))
	for i, c := range s {
		parts[i] = strconv.Itoa(int(c.path.kind)) + strconv.Quote(c.path.value) + strconv.Quote(c.method)
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}
