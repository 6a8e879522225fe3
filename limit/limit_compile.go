package limit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// RateLimit is the limit reported in a descriptor status: Envoy's
// RateLimitResponse.RateLimit.
type RateLimit struct {
	// Name is the limit's Name (empty for a descriptor's override).
	Name string
	// RequestsPerUnit is the limit's MaxValue.
	RequestsPerUnit uint32
	// Unit is the window as an Envoy unit, UnitUnknown when the window is
	// none of them.
	Unit descriptor.Unit
}

// compiledLimit is a validated Limit ready for matching.
type compiledLimit struct {
	index  int // position in the list given to the evaluator
	conds  []*Condition
	vars   []string // entry keys, sorted and unique
	prefix string   // counter key prefix; the variables' values follow
	policy counter.Policy
	status RateLimit
	cel    bool // some condition is CEL
}

// ValidateLimits checks limits as NewEvaluator and DecodeLimits do and
// returns every problem as an ErrorList with paths such as "[1].seconds", or
// nil. Two limits with the same identity are an error naming both indexes.
func ValidateLimits(limits []Limit) error {
	_, errs := compileLimits(limits, nil)
	return errs.Err()
}

// decodeFailures records what DecodeLimits found broken, so validation does
// not report it again.
type decodeFailures struct {
	fields map[string]bool // fields with an error, cut by fieldPath
	items  map[int]bool    // items with any error: no identity check
	whole  map[int]bool    // items that are not objects: no validation
}

// compileLimits compiles every limit; f (nil when nothing failed to decode)
// says which items and fields not to report on again.
func compileLimits(limits []Limit, f *decodeFailures) ([]*compiledLimit, ErrorList) {
	var errs ErrorList
	out := make([]*compiledLimit, 0, len(limits))
	seen := make(map[string]int, len(limits))
	for i := range limits {
		if f != nil && f.whole[i] {
			continue
		}
		path := "[" + strconv.Itoa(i) + "]"
		var lerrs ErrorList
		cl := compileLimit(&limits[i], i, path, &lerrs)
		for _, e := range lerrs {
			if f == nil || !f.fields[fieldPath(e.Field)] {
				errs = append(errs, e)
			}
		}
		if len(lerrs) > 0 || f != nil && f.items[i] {
			continue
		}
		id := limits[i].Identity()
		if j, dup := seen[id]; dup {
			addError(&errs, path, fmt.Sprintf("same identity as [%d] (namespace, seconds, conditions and variables)", j))
			continue
		}
		seen[id] = i
		out = append(out, cl)
	}
	return out, errs
}

func compileLimit(l *Limit, index int, path string, errs *ErrorList) *compiledLimit {
	if l.Namespace == "" {
		addError(errs, path+".namespace", "must not be empty")
	}
	if l.Seconds == 0 {
		addError(errs, path+".seconds", "must be greater than 0")
	}
	if !l.Algorithm.Valid() {
		addError(errs, path+".algorithm", fmt.Sprintf("unknown algorithm %d", uint8(l.Algorithm)))
	}
	cl := &compiledLimit{index: index}
	for j, src := range l.Conditions {
		c, err := ParseCondition(src)
		if err != nil {
			addError(errs, fmt.Sprintf("%s.conditions[%d]", path, j), strings.TrimPrefix(err.Error(), "limit: "))
			continue
		}
		cl.cel = cl.cel || c.IsCEL()
		cl.conds = append(cl.conds, c)
	}
	for j, v := range l.Variables {
		if _, err := variableKey(v); err != nil {
			addError(errs, fmt.Sprintf("%s.variables[%d]", path, j), err.Error())
		}
	}
	if len(*errs) > 0 {
		return nil
	}
	cl.vars = canonicalVariables(l.Variables)
	cl.policy = counter.Policy{Algorithm: l.Algorithm, Max: uint64(l.MaxValue), Window: time.Duration(l.Seconds) * time.Second}
	cl.status = RateLimit{Name: l.Name, RequestsPerUnit: l.MaxValue, Unit: descriptor.UnitForSeconds(l.Seconds)}
	b := appendHashTag(nil, l.Namespace)
	b = append(b, 'L', algorithmKeyByte(l.Algorithm))
	cl.prefix = string(appendIdentityRest(b, int64(l.Seconds), canonicalConditions(l.Conditions), cl.vars))
	return cl
}

// algorithmKeyByte tags counter keys with their algorithm, so that a limit
// whose algorithm changes starts new counters instead of misreading state.
func algorithmKeyByte(a counter.Algorithm) byte { return 'a' + byte(a) }

// appendHashTag appends "{" namespace "}" with "{", "}" and "%" escaped as
// %7B, %7D and %25, so the tag is the whole namespace and Redis Cluster
// keeps a domain's keys in one slot.
func appendHashTag(b []byte, ns string) []byte {
	b = append(b, '{')
	for i := 0; i < len(ns); i++ {
		switch c := ns[i]; c {
		case '{':
			b = append(b, "%7B"...)
		case '}':
			b = append(b, "%7D"...)
		case '%':
			b = append(b, "%25"...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '}')
}

// applies reports whether l applies to a descriptor with entries and, if so,
// appends its counter key to buf.
func (l *compiledLimit) applies(entries []Entry, act *activation, buf []byte) ([]byte, bool) {
	for _, v := range l.vars {
		if _, ok := lookup(entries, v); !ok {
			return buf, false
		}
	}
	for _, c := range l.conds {
		if !c.holds(entries, act) {
			return buf, false
		}
	}
	buf = append(buf, l.prefix...)
	for _, v := range l.vars {
		val, _ := lookup(entries, v)
		buf = appendNetstring(buf, val)
	}
	return buf, true
}
