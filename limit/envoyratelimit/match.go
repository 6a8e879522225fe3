package envoyratelimit

import "github.com/rlpkit/rlpkit/rlsmsg"

// Match returns the configured nodes that the entries reach, one per entry,
// when the last one has limits (a limit applies only when the request is as
// deep as the configuration); otherwise nil. At each level it takes the
// node whose composite key equals "key_value", else the first wildcard node
// (in file order) whose "key_pattern" matches "key_value", else the
// key-only node "key"; it never backtracks. Like the reference it compares
// composite strings, so a key-only node "a_b" also matches the entry
// (a, b). The result is appended to buf, which may be nil.
func (d *Domain) Match(entries []rlsmsg.Entry, buf []*Node) []*Node {
	if d == nil || len(entries) == 0 {
		return nil
	}
	path := buf[:0]
	lv := &d.root
	var scratch [128]byte
	for i, e := range entries {
		composite := append(append(append(scratch[:0], e.Key...), '_'), e.Value...)
		n := lv.byKey[string(composite)]
		if n == nil {
			n = lv.wild.first(lv.wildcards, composite)
		}
		if n == nil {
			n = lv.byKey[e.Key]
		}
		if n == nil {
			return nil
		}
		path = append(path, n)
		if i == len(entries)-1 {
			if len(n.Limits) == 0 {
				return nil
			}
			return path
		}
		if len(n.children.nodes) == 0 {
			return nil
		}
		lv = &n.children
	}
	return nil
}

// globMatch reports whether s matches pattern, where '*' matches any run of
// characters (also none) and every other byte itself.
func globMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
