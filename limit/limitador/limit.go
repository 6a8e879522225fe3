package limitador

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// Limit is one rate limit in limitador's file format. Its identity is
// (Namespace, Seconds, Conditions as a set, Variables as a set): MaxValue,
// Name, ID, Algorithm and EpochWindows are not part of it, so a changed MaxValue keeps
// counting on the same counters.
//
// A Limit is a plain value. Use DecodeLimits to read a file and
// ValidateLimits to check limits built in code.
type Limit struct {
	// Namespace is the RLS domain the limit belongs to. Required.
	Namespace string `json:"namespace" yaml:"namespace"`
	// MaxValue is the number of hits allowed per Seconds (the burst for the
	// token bucket and GCRA). 0 admits nothing.
	MaxValue uint32 `json:"max_value" yaml:"max_value"`
	// Seconds is the window. It must be greater than 0.
	Seconds uint32 `json:"seconds" yaml:"seconds"`
	// Conditions must all hold for the limit to apply to a request (see
	// Condition).
	Conditions []string `json:"conditions" yaml:"conditions"`
	// Variables must all resolve for the limit to apply to a request; it
	// keeps one counter per combination of their values. A variable is an
	// entry key, read from the entries of all the request's descriptors
	// merged into one map, a later entry winning (limitador 1.x), or a CEL
	// expression over descriptors and limit that evaluates to a string, a
	// number or a bool (limitador 2.x: descriptors[0]['user'],
	// descriptors[1]['x'], descriptors[0]['a'] + '/' + descriptors[0]['b']).
	// A variable reading a missing key skips the limit for that request.
	Variables []string `json:"variables" yaml:"variables"`
	// Name is an optional label, reported in statuses (Envoy's
	// current_limit.name) and bound to limit.name in CEL conditions.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// ID is an optional identifier, bound to limit.id in CEL conditions, as
	// limitador's limit id. It is not part of the limit's identity.
	ID string `json:"id,omitempty" yaml:"id,omitempty"`
	// Algorithm is the counting algorithm; the zero value is the fixed
	// window.
	Algorithm counter.Algorithm `json:"algorithm,omitempty" yaml:"algorithm,omitempty"`
	// EpochWindows aligns the fixed window to the Unix epoch (a 60 s window
	// starts on every whole minute), as envoyproxy/ratelimit counts. By
	// default a window starts at its counter's first hit, as limitador
	// counts. Other algorithms ignore it. Limits compiled from another
	// format set it; a limits file cannot.
	EpochWindows bool `json:"-" yaml:"-"`
}

// Identity returns a string that is equal for two limits exactly when they
// have the same identity: namespace, seconds, conditions as a set (in
// canonical form, see Condition.String) and variables as a set. It is
// length-prefixed, so no choice of values makes two identities collide.
// Conditions and variables that do not parse are taken verbatim.
func (l *Limit) Identity() string {
	b := limit.AppendString(nil, l.Namespace)
	return string(appendIdentityRest(b, int64(l.Seconds), canonicalConditions(l.Conditions), canonicalVariables(l.Variables)))
}

// IdentityKey returns the part of a limit's identity that does not name its namespace:
// seconds, the conditions as a set of canonical forms (k == v, k == 'v' and k=="v" are one
// condition) and the variables as a set of entry keys (descriptors[0].user,
// descriptors[0]['user'] and user are one variable). Two limits of one namespace have the
// same Identity exactly when their IdentityKeys are equal, so APIs that merge limits into one
// namespace (a RateLimitPolicy's patch key) use it instead of canonicalising on their own.
// Seconds is an int64 so that callers can key values not yet validated; conditions and
// variables that do not parse are taken verbatim, trimmed.
func IdentityKey(seconds int64, conditions, variables []string) string {
	return string(appendIdentityRest(nil, seconds, canonicalConditions(conditions), canonicalVariables(variables)))
}

// ParseVariable checks a limit variable and returns its canonical form, the one its
// limit's identity uses: the entry key for a variable that is one (trimmed) and for limitador
// 2.x's descriptors[0]['KEY'], descriptors[0]["KEY"] and descriptors[0].KEY, the trimmed
// source for any other CEL expression (descriptors[1]['x'], descriptors[0]['a'] + ':' +
// descriptors[0]['b']). It returns an error, without the package prefix so that callers can
// put it after a field path, for an empty variable or an expression that does not compile or
// cannot evaluate to a string, a number or a bool.
func ParseVariable(v string) (string, error) {
	if _, err := parseVariable(v); err != nil {
		return "", err
	}
	return canonicalVariable(v), nil
}

// appendIdentityRest appends seconds, the conditions and the variables.
func appendIdentityRest(b []byte, seconds int64, conds, vars []string) []byte {
	b = limit.AppendString(b, strconv.FormatInt(seconds, 10))
	b = limit.AppendString(b, strconv.Itoa(len(conds)))
	for _, c := range conds {
		b = limit.AppendString(b, c)
	}
	b = limit.AppendString(b, strconv.Itoa(len(vars)))
	for _, v := range vars {
		b = limit.AppendString(b, v)
	}
	return b
}

// canonicalConditions returns the sorted, deduplicated canonical forms.
func canonicalConditions(conds []string) []string {
	out := make([]string, 0, len(conds))
	for _, c := range conds {
		src := strings.TrimSpace(c)
		if key, op, value, ok := parseLegacy(src); ok {
			src = (&Condition{op: op, key: key, value: value}).String()
		}
		out = append(out, src)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// canonicalVariables returns the sorted, deduplicated canonical forms.
func canonicalVariables(vars []string) []string {
	out := make([]string, 0, len(vars))
	for _, v := range vars {
		out = append(out, canonicalVariable(v))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// canonicalVariable returns the form of a variable that its limit's identity
// uses: KEY for descriptors[0]['KEY'], descriptors[0]["KEY"] and
// descriptors[0].KEY, else the variable trimmed. (The two forms of one key
// read the same entry whenever a request has one descriptor, as Kuadrant's
// filter sends; with several, the key alone reads them all merged, see
// Limit.Variables.)
func canonicalVariable(v string) string {
	v = strings.TrimSpace(v)
	rest, ok := strings.CutPrefix(v, "descriptors[0]")
	if !ok {
		return v
	}
	switch {
	case strings.HasPrefix(rest, "["):
		p := scanner{s: rest, i: 1}
		if !p.peekQuote() {
			return v
		}
		key, ok := p.quoted()
		if !ok || p.i+1 != len(p.s) || p.s[p.i] != ']' || key == "" {
			return v
		}
		return key
	case strings.HasPrefix(rest, ".") && isCELIdent(rest[1:]):
		return rest[1:]
	}
	return v
}

// isCELIdent reports whether s is a CEL identifier: [A-Za-z_][A-Za-z0-9_]*.
func isCELIdent(s string) bool {
	for i, r := range s {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && '0' <= r && r <= '9':
		default:
			return false
		}
	}
	return s != ""
}
