package limitador

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// compiledLimit is a validated Limit ready for matching.
type compiledLimit struct {
	index     int // position in the list given to the evaluator
	conds     []*Condition
	vars      []*variable // one per canonical form, in canonical order
	ns        string      // the namespace
	tag       string      // the namespace's hash tag (limit.TagByDomain)
	first     int         // index in vars of the variable written first, -1 if none
	firstForm string      // its canonical form
	prefix    string      // counter key after the hash tag; the variables' values follow
	policy    counter.Policy
	status    rlsmsg.RateLimit
	cel       ref.Val // limit, as CEL conditions and variables read it
}

// ValidateLimits checks limits as NewEvaluator and DecodeLimits do and
// returns every problem as a fielderr.List with paths such as "[1].seconds", or
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
func compileLimits(limits []Limit, f *decodeFailures) ([]*compiledLimit, fielderr.List) {
	var errs fielderr.List
	out := make([]*compiledLimit, 0, len(limits))
	seen := make(map[string]int, len(limits))
	for i := range limits {
		if f != nil && f.whole[i] {
			continue
		}
		path := "[" + strconv.Itoa(i) + "]"
		var lerrs fielderr.List
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

func compileLimit(l *Limit, index int, path string, errs *fielderr.List) *compiledLimit {
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
		cl.conds = append(cl.conds, c)
	}
	byForm := make(map[string]*variable, len(l.Variables))
	for j, src := range l.Variables {
		v, err := parseVariable(src)
		if err != nil {
			addError(errs, fmt.Sprintf("%s.variables[%d]", path, j), err.Error())
			continue
		}
		if form := canonicalVariable(src); byForm[form] == nil {
			byForm[form] = v
		}
	}
	if len(*errs) > 0 {
		return nil
	}
	forms := canonicalVariables(l.Variables)
	cl.first = -1
	for i, form := range forms {
		cl.vars = append(cl.vars, byForm[form])
		if len(l.Variables) > 0 && form == canonicalVariable(l.Variables[0]) {
			cl.first, cl.firstForm = i, form
		}
	}
	cl.policy = counter.Policy{Algorithm: l.Algorithm, Max: uint64(l.MaxValue), Window: time.Duration(l.Seconds) * time.Second, FirstHit: !l.EpochWindows}
	cl.status = rlsmsg.RateLimit{Name: l.Name, RequestsPerUnit: l.MaxValue}
	cl.status.Unit, cl.status.UnitMultiplier = unitOf(l.Seconds)
	cl.cel = limitValue(l)
	cl.ns, cl.tag = l.Namespace, string(limit.AppendTag(nil, l.Namespace))
	b := []byte{'L', algorithmKeyByte(l.Algorithm)}
	cl.prefix = string(appendIdentityRest(b, int64(l.Seconds), canonicalConditions(l.Conditions), forms))
	return cl
}

// limitValue returns limit as CEL reads it: a map of name and id, each null
// when empty, as limitador binds them.
func limitValue(l *Limit) ref.Val {
	orNull := func(s string) any {
		if s == "" {
			return types.NullValue
		}
		return s
	}
	return types.NewStringInterfaceMap(types.DefaultTypeAdapter, map[string]any{"name": orNull(l.Name), "id": orNull(l.ID)})
}

// limitWarnings returns a warning for every condition and variable of l
// that can never match, with its path.
func limitWarnings(l *Limit, path string) []Warning {
	var out []Warning
	for j, src := range l.Conditions {
		if c, err := ParseCondition(src); err == nil && c.warn != "" {
			out = append(out, Warning{Path: fmt.Sprintf("%s.conditions[%d]", path, j), Message: c.warn})
		}
	}
	for j, src := range l.Variables {
		if v, err := parseVariable(src); err == nil && v.warn != "" {
			out = append(out, Warning{Path: fmt.Sprintf("%s.variables[%d]", path, j), Message: v.warn})
		}
	}
	return out
}

// algorithmKeyByte tags counter keys with their algorithm, so that a limit
// whose algorithm changes starts new counters instead of misreading state.
func algorithmKeyByte(a counter.Algorithm) byte { return 'a' + byte(a) }

// applies reports whether l applies to the request of act (every condition
// holds and every variable resolves) and, if so, appends its counter key to
// buf: the hash tag (the namespace's, or with limit.TagByFirstEntry the
// namespace's and the first variable's as written, with its value), "L",
// the algorithm, the identity without the namespace, and the variables'
// values in canonical order, length-prefixed. act.reads then says which
// descriptors it read.
func (l *compiledLimit) applies(act *activation, buf []byte, tagBy limit.TagBy) ([]byte, bool) {
	act.resetReads()
	act.limit = l.cel
	for _, c := range l.conds {
		if !c.holds(act) {
			return buf, false
		}
	}
	start, first, firstVal := len(buf), -1, ""
	if tagBy == limit.TagByFirstEntry && l.first >= 0 {
		var ok bool
		if firstVal, ok = l.vars[l.first].resolve(act); !ok {
			return buf, false
		}
		first = l.first
		buf = limit.AppendEntryTag(buf, l.ns, l.firstForm, firstVal)
	} else {
		buf = append(buf, l.tag...)
	}
	buf = append(buf, l.prefix...)
	for i, v := range l.vars {
		val := firstVal // resolved already when i == first
		if i != first {
			var ok bool
			if val, ok = v.resolve(act); !ok {
				return buf[:start], false
			}
		}
		buf = limit.AppendString(buf, val)
	}
	return buf, true
}

// statusUnits are the units a window is reported in, longest first.
var statusUnits = []rlsmsg.Unit{rlsmsg.UnitYear, rlsmsg.UnitMonth, rlsmsg.UnitWeek, rlsmsg.UnitDay, rlsmsg.UnitHour, rlsmsg.UnitMinute, rlsmsg.UnitSecond}

// unitOf returns how a window of seconds is reported in current_limit: the unit of exactly
// that length without a multiplier, or else the longest unit that divides it and the
// multiplier (10 s is SECOND x 10, 120 s MINUTE x 2), as envoyproxy/ratelimit reports a
// rule's unit_multiplier; UNKNOWN for 0.
func unitOf(seconds uint32) (rlsmsg.Unit, uint32) {
	if u := rlsmsg.UnitForSeconds(seconds); u != rlsmsg.UnitUnknown || seconds == 0 {
		return u, 0
	}
	for _, u := range statusUnits {
		if seconds%u.Seconds() == 0 {
			return u, seconds / u.Seconds()
		}
	}
	return rlsmsg.UnitUnknown, 0 // unreachable: SECOND divides every window
}
