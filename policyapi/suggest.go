package policyapi

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/policy"
)

// Candidates returns the "namespace/name" of every valid object of kind (policy.KindGateway
// or policy.KindHTTPRoute) in set, closest to name ("namespace/name", or a bare name that
// matches in any namespace) first: by the edit distance of the names, a different namespace
// counting one more, then alphabetically. It is how rlpkit suggests what a misspelt
// reference meant.
func Candidates(set *policy.Set, kind, name string) []string {
	return Closest(name, ValidNames(set, kind))
}

// ValidNames returns the "namespace/name" of every object of kind (policy.KindGateway or
// policy.KindHTTPRoute) in set that has no validation problem, in the set's order.
func ValidNames(set *policy.Set, kind string) []string {
	var out []string
	add := func(ns, name string) {
		if len(set.Problems(policy.ObjectKey{Kind: kind, Namespace: ns, Name: name})) == 0 {
			out = append(out, ns+"/"+name)
		}
	}
	switch kind {
	case policy.KindGateway:
		for _, gw := range set.Gateways {
			add(gw.Namespace, gw.Name)
		}
	case policy.KindHTTPRoute:
		for _, r := range set.HTTPRoutes {
			add(r.Namespace, r.Name)
		}
	}
	return out
}

// Closest returns names ("namespace/name") closest to name first (a bare name matches in
// every namespace; a different namespace counts one more), then alphabetically.
func Closest(name string, names []string) []string {
	return closest(keyOf(name), keysOf(names), false)
}

// Similar returns the names among names that are likely misspellings of name (at most a
// third of its letters, and at least two, differ), closest first: how rlpkit suggests what a
// misspelt listener or rule name meant.
func Similar(name string, names []string) []string {
	keys := make([]key, len(names))
	for i, n := range names {
		keys[i] = key{name: n}
	}
	out := closest(key{name: name}, keys, true)
	for i := range out {
		out[i] = strings.TrimPrefix(out[i], "/")
	}
	return out
}

// NotFound says that "kind namespace/name" is not among the inputs, with the likely
// misspellings among names ("namespace/name" each): "HTTPRoute ns/x not found (did you mean
// ns/y?)", or else what there is.
func NotFound(kind, name string, names []string) string {
	k, keys := keyOf(name), keysOf(names)
	msg := fmt.Sprintf("%s %s not found", kind, k)
	if similar := closest(k, keys, true); len(similar) > 0 {
		return msg + fmt.Sprintf(" (did you mean %s?)", strings.Join(similar, " or "))
	}
	if len(keys) == 0 {
		return msg + fmt.Sprintf("; there is no valid %s in the inputs", kind)
	}
	return msg + fmt.Sprintf("; %ss in the inputs: %s", kind, ListOf(closest(k, keys, false)))
}

// ListOf joins names, at most ten of them, saying how many more there are.
func ListOf(names []string) string {
	const most = 10
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}

// key is a namespace and a name; an empty namespace matches every namespace.
type key struct{ ns, name string }

func (k key) String() string { return k.ns + "/" + k.name }

func keyOf(s string) key {
	ns, n, ok := strings.Cut(s, "/")
	if !ok {
		return key{name: s}
	}
	return key{ns, n}
}

func keysOf(names []string) []key {
	out := make([]key, len(names))
	for i, n := range names {
		out[i] = keyOf(n)
	}
	return out
}

// closest returns keys as "namespace/name", closest to k first (an empty namespace in k
// matches every namespace); with similarOnly, only those close enough to be a likely
// misspelling of k: at most a third of the name's letters (at least two) differ.
func closest(k key, keys []key, similarOnly bool) []string {
	type scored struct {
		key
		d, nameD int
	}
	var list []scored
	for _, c := range keys {
		nameD := editDistance(k.name, c.name)
		d := nameD
		if k.ns != "" && c.ns != k.ns {
			d++
		}
		list = append(list, scored{c, d, nameD})
	}
	slices.SortFunc(list, func(a, b scored) int {
		return cmp.Or(cmp.Compare(a.d, b.d), strings.Compare(a.String(), b.String()))
	})
	limit := max(2, len(k.name)/3)
	out := []string{}
	for _, s := range list {
		if similarOnly && (s.nameD > limit || s.key == k) {
			continue
		}
		out = append(out, s.String())
	}
	return slices.Compact(out)
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
