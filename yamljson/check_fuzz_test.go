package yamljson_test

import (
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/yamljson"
)

// FuzzCheckNode: CheckNode never panics, and when it accepts a tree, a
// walk that follows every alias (as the readers that call it walk) ends
// within the stated limits: at most inputlimit.MaxAliasValues values more
// than are written, nested at most inputlimit.MaxDepth deep.
func FuzzCheckNode(f *testing.F) {
	for _, s := range []string{
		"a: &a [*a]\n",
		"a: &a\n  b: *a\n",
		"x: &a {k: 1, j: 2}\ny:\n  <<: *a\n  k: 3\n",
		"l: &l [{a: 1}, {b: 2}]\nm: {<<: *l, c: 3}\n",
		"a: &a [1, 2]\nb: &b [*a, *a, *a]\nc: [*b, *b, *b]\n",
		"a: &a [[[1]]]\nb: [[[*a]]]\n",
		"? &k [x]\n: *k\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var n yaml.Node
		if yaml.Unmarshal([]byte(s), &n) != nil {
			return
		}
		if yamljson.CheckNode(&n) != nil {
			return
		}
		w := &expander{budget: written(&n) + inputlimit.MaxAliasValues + 1}
		w.walk(&n, 0)
		if w.budget < 0 || w.deepest > inputlimit.MaxDepth {
			t.Fatalf("CheckNode accepted %q, whose expansion goes past the limits (budget %d, depth %d)", s, w.budget, w.deepest)
		}
	})
}

// written counts the nodes written, aliases not followed.
func written(n *yaml.Node) int {
	c := 1
	for _, ch := range n.Content {
		c += written(ch)
	}
	return c
}

// expander walks a tree following aliases, spending one unit of budget per
// value (as CheckNode counts: not the keys of mappings, not the alias
// nodes themselves) and stopping when it is spent.
type expander struct {
	budget, deepest int
}

func (w *expander) walk(n *yaml.Node, depth int) {
	if w.budget < 0 || n == nil {
		return
	}
	if n.Kind == yaml.AliasNode {
		w.walk(n.Alias, depth)
		return
	}
	w.budget--
	if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
		depth++
		w.deepest = max(w.deepest, depth)
	}
	for i, ch := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if ch.Kind != yaml.AliasNode {
				continue // a key: not a value
			}
		}
		w.walk(ch, depth)
	}
}
