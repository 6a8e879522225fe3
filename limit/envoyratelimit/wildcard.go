package envoyratelimit

import (
	"slices"
	"strings"
)

// wildcardIndex finds a level's first wildcard node, in file order, whose
// pattern matches a composite key without trying every wildcard node: the
// patterns are listed under their literal prefix (their composite up to the
// first '*'), and a look-up tries only those listed under a prefix of the
// composite, one map look-up per distinct prefix length.
type wildcardIndex struct {
	byPrefix map[string][]int32 // positions in level.wildcards, ascending
	lengths  []int              // the prefixes' distinct lengths, ascending
}

// add lists the wildcard node at position pos of level.wildcards.
func (x *wildcardIndex) add(n *Node, pos int) {
	prefix := n.composite[:strings.IndexByte(n.composite, '*')]
	if x.byPrefix == nil {
		x.byPrefix = map[string][]int32{}
	}
	x.byPrefix[prefix] = append(x.byPrefix[prefix], int32(pos))
	if i, found := slices.BinarySearch(x.lengths, len(prefix)); !found {
		x.lengths = slices.Insert(x.lengths, i, len(prefix))
	}
}

// first returns the first of wildcards (in their order) whose pattern
// matches composite, or nil.
func (x *wildcardIndex) first(wildcards []*Node, composite []byte) *Node {
	best := len(wildcards)
	for _, l := range x.lengths {
		if l > len(composite) {
			break
		}
		for _, pos := range x.byPrefix[string(composite[:l])] {
			if int(pos) >= best {
				break
			}
			if globMatch(wildcards[pos].composite, string(composite)) {
				best = int(pos)
				break
			}
		}
	}
	if best == len(wildcards) {
		return nil
	}
	return wildcards[best]
}
