package limit

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// Limit is one rate limit in limitador's file format. Its identity is
// (Namespace, Seconds, Conditions as a set, Variables as a set): MaxValue,
// Name and Algorithm are not part of it, so a changed MaxValue keeps
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
	// Conditions must all hold for the limit to apply to a descriptor (see
	// Condition).
	Conditions []string `json:"conditions" yaml:"conditions"`
	// Variables are descriptor entry keys; the limit applies only to
	// descriptors that have them all, and keeps one counter per combination
	// of their values. limitador 2.x's descriptors[0]['key'] and
	// descriptors[0].key name the entry key too.
	Variables []string `json:"variables" yaml:"variables"`
	// Name is an optional label, reported in statuses.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Algorithm is the counting algorithm; the zero value is the fixed
	// window.
	Algorithm counter.Algorithm `json:"algorithm,omitempty" yaml:"algorithm,omitempty"`
}

// Identity returns a string that is equal for two limits exactly when they
// have the same identity: namespace, seconds, conditions as a set (in
// canonical form, see Condition.String) and variables as a set. It is
// length-prefixed, so no choice of values makes two identities collide.
// Conditions and variables that do not parse are taken verbatim.
func (l *Limit) Identity() string {
	b := appendNetstring(nil, l.Namespace)
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

// ParseVariable returns the descriptor entry key a limit variable names: the variable itself
// (trimmed), or KEY in limitador 2.x's descriptors[0]['KEY'], descriptors[0]["KEY"] or
// descriptors[0].KEY. It returns an error, without the package prefix so that callers can put
// it after a field path, for an empty variable or another descriptors[...] expression.
func ParseVariable(v string) (string, error) { return variableKey(v) }

// appendIdentityRest appends seconds, the conditions and the variables.
func appendIdentityRest(b []byte, seconds int64, conds, vars []string) []byte {
	b = appendNetstring(b, strconv.FormatInt(seconds, 10))
	b = appendNetstring(b, strconv.Itoa(len(conds)))
	for _, c := range conds {
		b = appendNetstring(b, c)
	}
	b = appendNetstring(b, strconv.Itoa(len(vars)))
	for _, v := range vars {
		b = appendNetstring(b, v)
	}
	return b
}

// appendNetstring appends len(s) ":" s.
func appendNetstring(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	return append(b, s...)
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

// canonicalVariables returns the sorted, deduplicated entry keys.
func canonicalVariables(vars []string) []string {
	out := make([]string, 0, len(vars))
	for _, v := range vars {
		if key, err := variableKey(v); err == nil {
			v = key
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// variableKey returns the entry key a variable names: the variable itself,
// or KEY in limitador 2.x's descriptors[0]['KEY'], descriptors[0]["KEY"] or
// descriptors[0].KEY.
func variableKey(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("must not be empty")
	}
	rest, ok := strings.CutPrefix(v, "descriptors[")
	if !ok {
		return v, nil
	}
	bad := fmt.Errorf("unsupported variable expression %q: use a descriptor key, or descriptors[0]['key']", v)
	rest, ok = strings.CutPrefix(rest, "0]")
	if !ok {
		return "", bad
	}
	switch {
	case strings.HasPrefix(rest, "["):
		p := scanner{s: rest, i: 1}
		if !p.peekQuote() {
			return "", bad
		}
		key, ok := p.quoted()
		if !ok || !strings.HasPrefix(p.s[p.i:], "]") || p.i+1 != len(p.s) || key == "" {
			return "", bad
		}
		return key, nil
	case strings.HasPrefix(rest, ".") && isCELIdent(rest[1:]):
		return rest[1:], nil
	}
	return "", bad
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
