package limitador

import (
	"regexp"
	"slices"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// indexMin is the number of limits of a namespace from which the
// Evaluator looks its limits up by the request's entries rather than trying
// each one: below it, trying them all is as cheap.
const indexMin = 4

// entryPair is an entry a limit needs some visible descriptor to hold.
type entryPair struct{ key, value string }

// limitIndex finds, for a request, the limits of a namespace that can
// apply to it: every limit that needs a given entry (an equality condition
// on it) or entry key (a variable, an inequality) is listed under it, and
// only the limits listed under the request's entries, with those that need
// nothing, are tried. It only narrows the limits down: each is still tried
// in full, in configuration order, so that the answers are those of trying
// every limit.
type limitIndex struct {
	pairs  map[entryPair][]int32
	keys   map[string][]int32
	always []int32 // limits needing no particular entry
}

// newLimitIndex indexes limits by what each needs.
func newLimitIndex(limits []*compiledLimit) *limitIndex {
	x := &limitIndex{pairs: map[entryPair][]int32{}, keys: map[string][]int32{}}
	for i, l := range limits {
		switch p, kind := l.anchor(); kind {
		case anchorPair:
			x.pairs[p] = append(x.pairs[p], int32(i))
		case anchorKey:
			x.keys[p.key] = append(x.keys[p.key], int32(i))
		default:
			x.always = append(x.always, int32(i))
		}
	}
	return x
}

// candidates appends to buf the indexes, in increasing order and each once,
// of the limits that can apply to a request with descs: those listed under
// the entries of the descriptors configured limits see (see activation)
// and those needing nothing.
func (x *limitIndex) candidates(descs []rlsmsg.Descriptor, buf []int32) []int32 {
	buf = append(buf, x.always...)
	for i := range descs {
		d := &descs[i]
		if hasOverride(d) {
			continue
		}
		for _, e := range d.Entries {
			buf = append(buf, x.pairs[entryPair{e.Key, e.Value}]...)
			buf = append(buf, x.keys[e.Key]...)
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

type anchorKind uint8

const (
	anchorNone anchorKind = iota
	anchorPair            // an entry, key and value
	anchorKey             // an entry key
)

// anchor returns what l needs a visible descriptor of the request to hold
// for l to apply: an entry (a legacy KEY == VALUE condition, or a CEL
// condition descriptors[N]['KEY'] == 'VALUE'), else an entry key (a legacy
// KEY != VALUE condition or variable, or a CEL variable
// descriptors[N]['KEY']), else nothing.
func (l *compiledLimit) anchor() (entryPair, anchorKind) {
	var key string
	for _, c := range l.conds {
		switch c.op {
		case opEqual:
			return entryPair{c.key, c.value}, anchorPair
		case opNotEqual:
			key = c.key
		case opCEL:
			if k, v, ok := celEntryEquality(c.src); ok {
				return entryPair{k, v}, anchorPair
			}
		}
	}
	if key != "" {
		return entryPair{key: key}, anchorKey
	}
	for _, v := range l.vars {
		if v.prg == nil {
			return entryPair{key: v.key}, anchorKey
		}
		if k, ok := celEntryRead(v.src); ok {
			return entryPair{key: k}, anchorKey
		}
	}
	return entryPair{}, anchorNone
}

// A CEL string literal without escapes, single- or double-quoted.
const celPlainString = `(?:'([^'\\\n]*)'|"([^"\\\n]*)")`

var (
	celEntryEq  = regexp.MustCompile(`^descriptors\[\d+\]\[` + celPlainString + `\]\s*==\s*` + celPlainString + `$`)
	celEntryRef = regexp.MustCompile(`^descriptors\[\d+\]\[` + celPlainString + `\]$`)
)

// celEntryEquality recognises descriptors[N]['KEY'] == 'VALUE': it holds
// only when descriptor N holds the entry (KEY, VALUE).
func celEntryEquality(src string) (key, value string, ok bool) {
	m := celEntryEq.FindStringSubmatch(src)
	if m == nil {
		return "", "", false
	}
	return m[1] + m[2], m[3] + m[4], true
}

// celEntryRead recognises descriptors[N]['KEY']: it resolves only when
// descriptor N holds an entry KEY.
func celEntryRead(src string) (string, bool) {
	m := celEntryRef.FindStringSubmatch(src)
	if m == nil {
		return "", false
	}
	return m[1] + m[2], true
}
