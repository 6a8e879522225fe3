// Package inputlimittest writes inputs past each of package inputlimit's
// limits, for the tests of every reader: each is a piece of YAML (or JSON)
// that can stand where a reader expects a value or a line.
package inputlimittest

import (
	"fmt"
	"strings"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// Laughs is a YAML flow sequence that expands, through its aliases, to 10
// to the power levels values: level i is ten aliases to level i-1, all in
// one line, so it can be the value of any field. Five levels add more than
// inputlimit.MaxAliasValues in under 300 bytes.
func Laughs(levels int) string {
	var b strings.Builder
	b.WriteString(`[&l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]`)
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, ", &l%d [%s]", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", i-1), 10), ","))
	}
	b.WriteString("]")
	return b.String()
}

// Nested is depth flow sequences, one inside the other, around a number: a
// YAML and JSON value nested depth deep.
func Nested(depth int) string {
	return strings.Repeat("[", depth) + "1" + strings.Repeat("]", depth)
}

// TooDeep is a value nested one level deeper than inputlimit.MaxDepth.
func TooDeep() string { return Nested(inputlimit.MaxDepth + 1) }

// Padding is a YAML comment line that makes any input it starts larger
// than inputlimit.MaxBytes.
func Padding() string { return "#" + strings.Repeat(" ", inputlimit.MaxBytes) + "\n" }

// BigString is a JSON (and YAML) string literal that makes any input holding
// it larger than inputlimit.MaxBytes.
func BigString() string { return `"` + strings.Repeat("x", inputlimit.MaxBytes) + `"` }
