package yamljson

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// scalarType is what a YAML scalar becomes in JSON.
type scalarType uint8

const (
	typeNull      scalarType = iota
	typeBool                 // text is "true" or "false"
	typeInt                  // text is decimal digits with an optional "-"
	typeFloat                // text is a finite JSON number
	typeString               // text is the raw string, not yet quoted
	typeNonFinite            // .inf, -.inf or .nan; text is the scalar as written
)

// scalar is a resolved YAML scalar.
type scalar struct {
	typ  scalarType
	text string
}

// Tags of the YAML core schema as yaml.v3 shortens them.
const (
	tagNull      = "!!null"
	tagBool      = "!!bool"
	tagInt       = "!!int"
	tagFloat     = "!!float"
	tagStr       = "!!str"
	tagTimestamp = "!!timestamp"
	tagMerge     = "!!merge"
	tagMap       = "!!map"
	tagSeq       = "!!seq"
)

// resolveScalar resolves n (a ScalarNode) as yaml.v3 does when it decodes into
// an interface value, except that timestamps stay strings and integers too
// large for 64 bits keep their digits. A non-empty problem says why the scalar
// cannot become JSON.
func resolveScalar(n *yaml.Node) (s scalar, problem string) {
	tag := n.ShortTag()
	if n.Style&yaml.TaggedStyle == 0 {
		// Untagged: the parser already resolved a plain scalar's tag, and
		// ShortTag reports quoted, literal and folded scalars as strings.
		plain := n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0
		return resolveAs(tag, n.Value, plain), ""
	}
	switch tag {
	case tagStr:
		return scalar{typeString, n.Value}, ""
	case tagNull, tagBool, tagInt, tagFloat, tagTimestamp:
		untagged := (&yaml.Node{Kind: yaml.ScalarNode, Value: n.Value}).ShortTag()
		s := resolveAs(untagged, n.Value, true)
		var ok bool
		switch tag {
		case tagNull:
			ok = s.typ == typeNull
		case tagBool:
			ok = s.typ == typeBool
		case tagInt:
			ok = s.typ == typeInt
		case tagFloat:
			ok = s.typ == typeInt || s.typ == typeFloat || s.typ == typeNonFinite
		case tagTimestamp:
			ok = untagged == tagTimestamp
		}
		if !ok {
			return scalar{}, fmt.Sprintf("%q is not a valid %s", n.Value, tag)
		}
		return s, ""
	case tagMerge:
		return scalar{}, "tag !!merge belongs only on a << key"
	}
	return scalar{}, fmt.Sprintf("tag %s cannot be represented in JSON", tag)
}

// resolveAs gives value the meaning of the core-schema tag the YAML resolver
// chose for it. plain says the scalar was written without quotes, so that a
// decimal integer too long for strconv still reads as a number.
func resolveAs(tag, value string, plain bool) scalar {
	switch tag {
	case tagNull:
		return scalar{typeNull, "null"}
	case tagBool:
		switch value {
		case "true", "True", "TRUE":
			return scalar{typeBool, "true"}
		}
		return scalar{typeBool, "false"}
	case tagInt:
		if text, ok := intText(value); ok {
			return scalar{typeInt, text}
		}
	case tagFloat:
		if digits, ok := bigInt(value); ok {
			return scalar{typeInt, digits}
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(value, "_", ""), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			// The resolver calls only .inf, -.inf, .nan and their spellings
			// floats that strconv rejects.
			return scalar{typeNonFinite, value}
		}
		return scalar{typeFloat, formatFloat(f)}
	case tagStr:
		if digits, ok := bigInt(value); ok && plain {
			// Digits beyond what strconv can parse as a float.
			return scalar{typeInt, digits}
		}
	}
	// Strings, timestamps (kept as written) and a "<<" outside a key.
	return scalar{typeString, value}
}

// intText formats an integer the YAML resolver accepted (decimal, 0x, 0o, 0b,
// 1.1-style leading-zero octal, "_" separators) as decimal digits. It tries the
// same readings in the same order as the resolver.
func intText(value string) (string, bool) {
	s := strings.ReplaceAll(value, "_", "")
	if i, err := strconv.ParseInt(s, 0, 64); err == nil {
		return strconv.FormatInt(i, 10), true
	}
	if u, err := strconv.ParseUint(s, 0, 64); err == nil {
		return strconv.FormatUint(u, 10), true
	}
	for _, p := range []struct {
		prefix, sign string
		base         int
	}{{"0b", "", 2}, {"-0b", "-", 2}, {"0o", "", 8}, {"-0o", "-", 8}} {
		rest, ok := strings.CutPrefix(s, p.prefix)
		if !ok {
			continue
		}
		if i, err := strconv.ParseInt(p.sign+rest, p.base, 64); err == nil {
			return strconv.FormatInt(i, 10), true
		}
		if u, err := strconv.ParseUint(p.sign+rest, p.base, 64); err == nil {
			return strconv.FormatUint(u, 10), true
		}
		return "", false
	}
	return "", false
}

// bigInt reports whether value is a decimal integer as the resolver reads one
// (a sign or digit first, "_" separators ignored) and returns it as a JSON
// number: no "+", no leading zeros.
func bigInt(value string) (string, bool) {
	if value == "" || !(value[0] == '-' || value[0] == '+' || '0' <= value[0] && value[0] <= '9') {
		return "", false
	}
	s := strings.ReplaceAll(value, "_", "")
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	if s == "" {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return "", false
		}
	}
	s = strings.TrimLeft(s, "0")
	switch {
	case s == "":
		return "0", true
	case neg:
		return "-" + s, true
	}
	return s, true
}

// formatFloat writes a finite float as the shortest JSON number that reads
// back as f: plain notation from 1e-6 up to 1e21, exponent notation outside,
// with the exponent's leading zero dropped. Negative zero is written "-0.0"
// because "-0" would read back as the integer 0.
func formatFloat(f float64) string {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	s := strconv.FormatFloat(f, 'e', -1, 64)
	if i := strings.Index(s, "e-0"); i >= 0 {
		s = s[:i+2] + s[i+3:]
	}
	return s
}
