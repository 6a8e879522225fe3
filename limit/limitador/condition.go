package limitador

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// MaxConditionLength bounds the length of a condition's source, in bytes.
const MaxConditionLength = 4096

// Condition is a compiled limit condition. Two forms exist:
//
//   - KEY == VALUE and KEY != VALUE, the legacy form: KEY starts with a
//     letter or "_" and continues with letters, digits and "_-.:/", and is
//     not limit.name or limit.id (those are CEL); VALUE is single- or
//     double-quoted (no escapes inside) or unquoted in the same characters
//     as a key. Limitador's reversed form 'VALUE' == KEY is
//     accepted too. These never go through CEL.
//   - any other text is a CEL expression over descriptors, a list of string
//     maps, one per request descriptor (as limitador 2.x writes them:
//     descriptors[0]['user'] == 'bob'), and limit, a map holding the limit's
//     name and id (null when unset), which must evaluate to a bool. It is
//     compiled once. Keys with dots are read with brackets:
//     descriptors[0]['req.method'].
//
// The legacy form reads the entries of all the request's descriptors merged
// into one map, a later entry winning, as limitador 1.x did. A condition on
// a missing key is false: in the legacy form whatever the operator, in CEL
// because every evaluation error (a missing key, an index out of range, the
// cost limit) makes the condition false.
//
// A Condition is immutable and safe for concurrent use.
type Condition struct {
	src   string // trimmed source
	op    condOp
	key   string // legacy form
	value string // legacy form
	prg   cel.Program
	warn  string // why the expression can never match, or ""
}

type condOp uint8

const (
	opEqual condOp = iota
	opNotEqual
	opCEL
)

// ParseCondition compiles s. The error names the condition and, for CEL,
// the column of each problem.
func ParseCondition(s string) (*Condition, error) {
	src := strings.TrimSpace(s)
	if err := checkSource(src, "limit: condition", "limit: condition must not be empty"); err != nil {
		return nil, err
	}
	if key, op, value, ok := parseLegacy(src); ok && !readsLimit(key) {
		return &Condition{src: src, op: op, key: key, value: value}, nil
	}
	prg, warn, err := compileCEL(src, celBool)
	if err != nil {
		return nil, fmt.Errorf("limit: condition %q: %w", src, err)
	}
	return &Condition{src: src, op: opCEL, prg: prg, warn: warn}, nil
}

// checkSource returns why the trimmed source src of a condition or variable
// (what, as error messages name it) is refused before it is parsed: empty
// (the error empty), longer than MaxConditionLength, or not UTF-8.
func checkSource(src, what, empty string) error {
	switch {
	case src == "":
		return errors.New(empty)
	case len(src) > MaxConditionLength:
		return fmt.Errorf("%s is %d bytes long, more than %d", what, len(src), MaxConditionLength)
	case !utf8.ValidString(src):
		return fmt.Errorf("%s %q is not valid UTF-8", what, src)
	}
	return nil
}

// String returns the condition's canonical text: for the legacy form
// KEY == "VALUE" (single quotes when VALUE holds a double quote), for CEL the
// trimmed source. Conditions with equal String are the same condition.
func (c *Condition) String() string {
	if c.op == opCEL {
		return c.src
	}
	op := " == "
	if c.op == opNotEqual {
		op = " != "
	}
	q := `"`
	if strings.Contains(c.value, `"`) {
		q = `'`
	}
	return c.key + op + q + c.value + q
}

// IsCEL reports whether the condition is a CEL expression.
func (c *Condition) IsCEL() bool { return c.op == opCEL }

// Warning returns why the condition can never match, or "". ParseCondition
// accepts such a condition, as limitador does (its CEL is not
// type-checked), but it is false for every request:
// descriptors[0].req.method selects a field "method" of the value of the
// entry "req", which is a string; the entry "req.method" is
// descriptors[0]['req.method'].
func (c *Condition) Warning() string { return c.warn }

// Holds reports whether the condition holds for a request with descriptors,
// as the Evaluator evaluates it, for no limit in particular (limit.name and
// limit.id are unbound).
func (c *Condition) Holds(descriptors ...rlsmsg.Descriptor) bool {
	var act activation
	act.reset(descriptors)
	return c.holds(&act)
}

// holds is Holds with the activation of a request shared by the conditions
// of all its limits.
func (c *Condition) holds(act *activation) bool {
	switch c.op {
	case opEqual:
		v, ok := act.lookup(c.key)
		return ok && v == c.value
	case opNotEqual:
		v, ok := act.lookup(c.key)
		return ok && v != c.value
	}
	out, _, err := c.prg.Eval(act)
	if err != nil {
		return false
	}
	b, ok := out.Value().(bool)
	return ok && b
}

// readsLimit reports whether a key of the legacy form is limit.name or
// limit.id, which CEL reads (limitador 2.x binds limit to the limit being
// evaluated), rather than a descriptor entry. Other keys starting with
// "limit." stay entry keys: Kuadrant's limit ids (limit.global__53f76b2d)
// are entry keys, which limitador 1.x limits read in the legacy form.
func readsLimit(key string) bool { return key == "limit.name" || key == "limit.id" }

// parseLegacy recognises KEY op VALUE and 'VALUE' op KEY.
func parseLegacy(s string) (key string, op condOp, value string, ok bool) {
	p := scanner{s: s}
	if p.peekQuote() {
		value, ok = p.quoted()
		if !ok {
			return "", 0, "", false
		}
		if op, ok = p.operator(); !ok {
			return "", 0, "", false
		}
		key = p.word(true)
		return key, op, value, key != "" && p.done()
	}
	if key = p.word(true); key == "" {
		return "", 0, "", false
	}
	if op, ok = p.operator(); !ok {
		return "", 0, "", false
	}
	if p.peekQuote() {
		value, ok = p.quoted()
	} else {
		value = p.word(false)
		ok = value != ""
	}
	return key, op, value, ok && p.done()
}

type scanner struct {
	s string
	i int
}

func (p *scanner) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *scanner) done() bool {
	p.skipSpace()
	return p.i == len(p.s)
}

func (p *scanner) peekQuote() bool {
	p.skipSpace()
	return p.i < len(p.s) && (p.s[p.i] == '\'' || p.s[p.i] == '"')
}

// quoted reads a quoted string; the content runs to the next same quote.
func (p *scanner) quoted() (string, bool) {
	q := p.s[p.i]
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", false
	}
	v := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return v, true
}

func (p *scanner) operator() (condOp, bool) {
	p.skipSpace()
	switch {
	case strings.HasPrefix(p.s[p.i:], "=="):
		p.i += 2
		return opEqual, true
	case strings.HasPrefix(p.s[p.i:], "!="):
		p.i += 2
		return opNotEqual, true
	}
	return 0, false
}

// word reads key characters; a key (ident) must start with a letter or "_".
func (p *scanner) word(ident bool) string {
	p.skipSpace()
	start := p.i
	for p.i < len(p.s) {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		first := p.i == start
		if !(unicode.IsLetter(r) || r == '_' || (!first || !ident) && (unicode.IsDigit(r) || strings.ContainsRune("-.:/", r))) {
			break
		}
		p.i += size
	}
	return p.s[start:p.i]
}
