package envoyratelimit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWildcardIndexFindsTheFirstMatch checks the index against trying every
// wildcard in file order, over random patterns and composites from a small
// alphabet, so that prefixes overlap and several patterns match.
func TestWildcardIndexFindsTheFirstMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 2))
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	for round := range 200 {
		var lv level
		for range 1 + r.IntN(30) {
			n := &Node{Key: "k", Value: word("ab*", 1+r.IntN(5))}
			if n.Value == "" || !strings.Contains(n.Value, "*") {
				n.Value += "*"
			}
			n.composite = n.Key + "_" + n.Value
			lv.wild.add(n, len(lv.wildcards))
			lv.wildcards = append(lv.wildcards, n)
		}
		for range 50 {
			composite := []byte("k_" + word("ab", r.IntN(7)))
			var want *Node
			for _, w := range lv.wildcards {
				if globMatch(w.composite, string(composite)) {
					want = w
					break
				}
			}
			if got := lv.wild.first(lv.wildcards, composite); got != want {
				t.Fatalf("round %d: first(%q) = %v, want %v", round, composite, got, want)
			}
		}
	}
}
