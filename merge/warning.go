package merge

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/policy"
)

// Warning is a problem of valid inputs that compiling survives but that most likely is a
// mistake: a policy or a route that ends up applying to no request. It prints as
//
//	policies.yaml:7: RateLimitPolicy default/toystore-rlp: spec.targetRef: HTTPRoute default/toystor not found (did you mean default/toystore?)
type Warning struct {
	// Source is where the field was read (see policy.Set.FieldSource); the zero value when
	// the object was not read from a file, or when the warning concerns the inputs as a
	// whole.
	Source policy.Source `json:"source,omitzero"`
	// Object is "Kind namespace/name"; empty when the warning concerns the inputs as a
	// whole.
	Object string `json:"object,omitempty"`
	// Field is the field path of the object the warning is about, e.g. "spec.targetRef";
	// empty for the object as a whole.
	Field string `json:"field,omitempty"`
	// Message says what is wrong and what to do.
	Message string `json:"message"`
}

// String formats the warning on one line: "file:line: Object: field.path: message", leaving
// out the parts that are empty.
func (w Warning) String() string {
	var parts []string
	if w.Source != (policy.Source{}) {
		parts = append(parts, w.Source.String())
	}
	for _, p := range []string{w.Object, w.Field, w.Message} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// compareWarnings orders warnings as their fields appear in the inputs (file, document,
// line), then by object, field and message, so that the order does not depend on the order
// of the objects in a Set.
func compareWarnings(a, b Warning) int {
	return cmp.Or(
		strings.Compare(a.Source.File, b.Source.File),
		cmp.Compare(a.Source.Doc, b.Source.Doc),
		cmp.Compare(a.Source.Line, b.Source.Line),
		strings.Compare(a.Object, b.Object),
		strings.Compare(a.Field, b.Field),
		strings.Compare(a.Message, b.Message),
	)
}

// Candidates returns the "namespace/name" of every valid object of kind (policy.KindGateway
// or policy.KindHTTPRoute) in set, closest to name ("namespace/name", or a bare name that
// matches in any namespace) first: by the edit distance of the names, a different namespace
// counting one more, then alphabetically. It is how rlpkit suggests what a misspelt
// reference meant.
func Candidates(set *policy.Set, kind, name string) []string {
	ns, n, ok := strings.Cut(name, "/")
	if !ok {
		ns, n = "", name
	}
	var keys []key
	switch kind {
	case policy.KindGateway:
		for _, gw := range validObjects(set).Gateways {
			keys = append(keys, key{gw.Namespace, gw.Name})
		}
	case policy.KindHTTPRoute:
		for _, r := range validObjects(set).HTTPRoutes {
			keys = append(keys, key{r.Namespace, r.Name})
		}
	}
	return closest(key{ns, n}, keys, false)
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

// closest returns keys as "namespace/name", closest to k first (an empty namespace in k
// matches every namespace); with similarOnly, only those
// close enough to be a likely misspelling of k: at most a third of the name's letters
// (at least two) differ.
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

// notFound says that a kind ns/name is not among the inputs, with the likely misspellings
// among keys, or what there is.
func notFound(kind string, k key, keys []key) string {
	msg := fmt.Sprintf("%s %s not found", kind, k)
	if similar := closest(k, keys, true); len(similar) > 0 {
		return msg + fmt.Sprintf(" (did you mean %s?)", strings.Join(similar, " or "))
	}
	if len(keys) == 0 {
		return msg + fmt.Sprintf("; there is no valid %s in the inputs", kind)
	}
	return msg + fmt.Sprintf("; %ss in the inputs: %s", kind, listOf(closest(k, keys, false)))
}

// listOf joins names, at most ten of them.
func listOf(names []string) string {
	const most = 10
	if len(names) > most {
		return strings.Join(names[:most], ", ") + fmt.Sprintf(" and %d more", len(names)-most)
	}
	return strings.Join(names, ", ")
}
