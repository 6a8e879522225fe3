package policy

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// requiredFields are the JSON fields an object of a type must have (not null). Decoding
// fills absent fields with zero values, which for these would be valid but wrong:
// max_value 0 blocks every request.
var requiredFields = map[reflect.Type][]requiredField{
	reflect.TypeFor[RateLimitSpec](): {
		{"max_value", "how many requests the limit admits per seconds; 0 admits none"},
		{"seconds", "the length of the limit's window, in seconds"},
	},
}

// requiredField is a JSON field that must be given, and what it is for.
type requiredField struct{ name, detail string }

// typeChecker walks a parsed JSON document (numbers as json.Number) against the Go type it
// is to be decoded into, the way encoding/json would assign it, and records every value
// whose JSON type does not fit its field, with its full path. It removes those values from
// the document, so that the rest decodes, and lists the paths it removed.
type typeChecker struct {
	errs field.ErrorList
}

// check checks v against t at path p. It returns the value to keep (a number written as
// 60.0 becomes 60) and false when v does not fit and must be dropped.
func (c *typeChecker) check(v any, t reflect.Type, p *field.Path) (any, bool) {
	if v == nil {
		return nil, true // null leaves the zero value, as encoding/json does
	}
	if t.Kind() == reflect.Pointer {
		return c.check(v, t.Elem(), p)
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return c.custom(v, t, p)
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return c.text(v, t, p)
	}
	switch t.Kind() {
	case reflect.Interface:
		return v, true
	case reflect.Struct:
		return c.object(v, t, p)
	case reflect.Slice, reflect.Array:
		return c.list(v, t, p)
	case reflect.Map:
		return c.mapping(v, t, p)
	case reflect.String:
		if _, ok := v.(string); !ok {
			return c.mismatch(v, p, "must be a string")
		}
		return v, true
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return c.mismatch(v, p, "must be true or false")
		}
		return v, true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return c.integer(v, p, true, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return c.integer(v, p, false, t.Bits())
	case reflect.Float32, reflect.Float64:
		return c.float(v, p, t.Bits())
	}
	// The types read hold no channels or functions; encoding/json could not fill them.
	return c.mismatch(v, p, "cannot be decoded into "+t.String())
}

// text checks a value for a type that decodes itself from a string
// (encoding.TextUnmarshaler) by decoding it.
func (c *typeChecker) text(v any, t reflect.Type, p *field.Path) (any, bool) {
	s, ok := v.(string)
	if !ok {
		return c.mismatch(v, p, "must be a string")
	}
	if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
		c.errs = append(c.errs, field.Invalid(p, s, err.Error()))
		return nil, false
	}
	return v, true
}

// object checks a value for the struct type t: an object with the required fields, each
// known field checked against its type and dropped when it does not fit.
func (c *typeChecker) object(v any, t reflect.Type, p *field.Path) (any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return c.mismatch(v, p, "must be an object")
	}
	fields := jsonFieldTypes(t)
	for _, f := range requiredFields[t] {
		if obj[f.name] == nil {
			c.errs = append(c.errs, field.Required(p.Child(f.name), f.detail))
		}
	}
	for k, fv := range obj {
		ft, known := fields[k]
		if !known {
			continue // strict decoding reports unknown fields
		}
		if keep, ok := c.check(fv, ft, p.Child(k)); ok {
			obj[k] = keep
		} else {
			delete(obj, k)
		}
	}
	return obj, true
}

// list checks a value for the slice or array type t: a list, each element checked (bytes:
// a base64 string).
func (c *typeChecker) list(v any, t reflect.Type, p *field.Path) (any, bool) {
	if t.Elem().Kind() == reflect.Uint8 {
		if _, ok := v.(string); !ok {
			return c.mismatch(v, p, "must be a string (base64)")
		}
		return v, true
	}
	arr, ok := v.([]any)
	if !ok {
		return c.mismatch(v, p, "must be a list")
	}
	for i, e := range arr {
		keep, _ := c.check(e, t.Elem(), p.Index(i))
		arr[i] = keep // a dropped element becomes null, so that indexes stay
	}
	return arr, true
}

// mapping checks a value for the map type t: an object, each value checked and dropped
// when it does not fit.
func (c *typeChecker) mapping(v any, t reflect.Type, p *field.Path) (any, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return c.mismatch(v, p, "must be an object")
	}
	for k, e := range obj {
		if keep, ok := c.check(e, t.Elem(), p.Key(k)); ok {
			obj[k] = keep
		} else {
			delete(obj, k)
		}
	}
	return obj, true
}

// float checks that v is a number that fits a float of the given bits.
func (c *typeChecker) float(v any, p *field.Path, bits int) (any, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return c.mismatch(v, p, "must be a number")
	}
	if _, err := strconv.ParseFloat(string(n), bits); err != nil {
		return c.mismatch(v, p, "out of range")
	}
	return v, true
}

// integer checks that v is an integer that fits the given bits. An integer written with a
// fraction or exponent (60.0, 1e3) is accepted, as package limit/limitador accepts it, and rewritten.
func (c *typeChecker) integer(v any, p *field.Path, signed bool, bits int) (any, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return c.mismatch(v, p, "must be an integer"+integerHint(v, p))
	}
	lo, hi := "0", strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
	if signed {
		lo, hi = strconv.FormatInt(math.MinInt64>>(64-bits), 10), strconv.FormatInt(math.MaxInt64>>(64-bits), 10)
	}
	rangeErr := func() (any, bool) {
		if strings.HasPrefix(string(n), "-") {
			return c.mismatch(v, p, "out of range: must be at least "+lo)
		}
		return c.mismatch(v, p, "out of range: must be at most "+hi)
	}
	var err error
	if signed {
		_, err = strconv.ParseInt(string(n), 10, bits)
	} else {
		_, err = strconv.ParseUint(string(n), 10, bits)
	}
	if err == nil {
		return v, true
	}
	if errors.Is(err, strconv.ErrRange) {
		return rangeErr()
	}
	f, ferr := strconv.ParseFloat(string(n), 64)
	switch {
	case !strings.ContainsAny(string(n), ".eE") && strings.HasPrefix(string(n), "-") && !signed:
		return rangeErr()
	case errors.Is(ferr, strconv.ErrRange):
		return rangeErr()
	case ferr != nil || f != math.Trunc(f):
		return c.mismatch(v, p, "must be an integer")
	case f < mustFloat(lo) || f > mustFloat(hi):
		return rangeErr()
	}
	return json.Number(strconv.FormatFloat(f, 'f', -1, 64)), true
}

// integerHint says how to write a string that was meant as an integer: a quoted number,
// or a duration where a number of seconds goes.
func integerHint(v any, p *field.Path) string {
	str, ok := v.(string)
	if !ok {
		return ""
	}
	if _, err := strconv.ParseInt(strings.TrimSpace(str), 10, 64); err == nil {
		return ", not a string: write " + strings.TrimSpace(str) + " without quotes"
	}
	if d, err := time.ParseDuration(str); err == nil && strings.HasSuffix(p.String(), "seconds") && d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf(" number of seconds: write %d for %s", d/time.Second, str)
	}
	return ""
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// custom checks a value for a type with its own UnmarshalJSON (metav1.Time, ...) by
// decoding it.
func (c *typeChecker) custom(v any, t reflect.Type, p *field.Path) (any, bool) {
	raw, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(raw, reflect.New(t).Interface())
	}
	if err == nil {
		return v, true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return c.mismatch(v, p, "must be "+jsonKindOf(te.Type))
	}
	return c.mismatch(v, p, strings.TrimPrefix(err.Error(), "json: "))
}

// mismatch records that v does not fit at p and drops it.
func (c *typeChecker) mismatch(v any, p *field.Path, detail string) (any, bool) {
	switch v.(type) {
	case map[string]any:
		c.errs = append(c.errs, field.TypeInvalid(p, field.OmitValueType{}, "object: "+detail))
	case []any:
		c.errs = append(c.errs, field.TypeInvalid(p, field.OmitValueType{}, "list: "+detail))
	default:
		c.errs = append(c.errs, field.TypeInvalid(p, v, detail))
	}
	return nil, false
}

// jsonKindOf names what JSON value a Go type takes.
func jsonKindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// jsonFieldTypes maps the JSON names of a struct's fields to their types, as encoding/json
// sees them: fields of embedded structs without a name (and ",inline" ones, as the
// Kubernetes types mark them) are promoted, fields tagged "-" and unexported ones are not
// decoded. A name promoted from an embedded struct loses to one declared in t.
func jsonFieldTypes(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && tag == "-" {
			continue
		}
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for _, et := range embedded {
		for name, ft := range jsonFieldTypes(et) {
			if _, declared := out[name]; !declared {
				out[name] = ft
			}
		}
	}
	return out
}
