package limitador

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// variable is a compiled limit variable: an entry key (the legacy form,
// read from the entries of all descriptors merged into one map) or a CEL
// expression over descriptors and limit (limitador 2.x).
type variable struct {
	src  string // trimmed source
	key  string // the legacy form's entry key
	prg  cel.Program
	warn string
}

// parseVariable compiles a variable. A variable made only of key characters
// (a letter or "_", then letters, digits and "_-.:/"), other than
// limit.name and limit.id, is an entry key;
// anything else is a CEL expression that must evaluate to a string, a
// number, a bool or null.
func parseVariable(v string) (*variable, error) {
	src := strings.TrimSpace(v)
	if err := checkSource(src, "variable", "must not be empty"); err != nil {
		return nil, err
	}
	if isEntryKey(src) {
		return &variable{src: src, key: src}, nil
	}
	prg, warn, err := compileCEL(src, celScalar)
	if err != nil {
		return nil, fmt.Errorf("variable %q: %w", src, err)
	}
	return &variable{src: src, prg: prg, warn: warn}, nil
}

// isEntryKey reports whether s is a legacy entry key.
func isEntryKey(s string) bool {
	p := scanner{s: s}
	return p.word(true) == s && !readsLimit(s)
}

// resolve returns the variable's value in a request, and false when it does
// not resolve: a missing key, or (CEL) any evaluation error or a value
// that is not a string, a number, a bool or null. Numbers and bools are
// written as limitador writes them (3, 1.5, true); null is "null".
func (v *variable) resolve(act *activation) (string, bool) {
	if v.prg == nil {
		return act.lookup(v.key)
	}
	out, _, err := v.prg.Eval(act)
	if err != nil {
		return "", false
	}
	switch x := out.(type) {
	case types.String:
		return string(x), true
	case types.Int:
		return strconv.FormatInt(int64(x), 10), true
	case types.Uint:
		return strconv.FormatUint(uint64(x), 10), true
	case types.Double:
		return strconv.FormatFloat(float64(x), 'f', -1, 64), true
	case types.Bool:
		return strconv.FormatBool(bool(x)), true
	case types.Null:
		return "null", true
	}
	return "", false
}
