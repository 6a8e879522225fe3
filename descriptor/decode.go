package descriptor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/inputlimit"
)

// Decode reads a PluginConfig from JSON, in the current schema or the older one
// (LegacyPluginConfig, recognised by its "ratelimitpolicies" or "failure_mode_deny" keys and
// converted). Decoding is strict: an unknown field, a value of the wrong type or trailing
// data is an error naming its field path, and every such problem is reported. Decode does not
// validate; Compile does, and so does Validate. JSON larger than 16 MiB or nested more than
// 1,000 deep is refused before it is decoded (package inputlimit).
//
// To read YAML, convert it to JSON first (package yamljson keeps this package free of
// dependencies beyond the standard library).
func Decode(data []byte) (*PluginConfig, error) {
	root, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, fielderr.List{{Pkg: pkg, Detail: "expected a JSON object, got " + kindOf(root)}}
	}
	if isLegacy(obj) {
		var legacy LegacyPluginConfig
		if err := decodeInto(obj, &legacy); err != nil {
			return nil, err
		}
		return legacy.Convert(), nil
	}
	var cfg PluginConfig
	if err := decodeInto(obj, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// parseJSON decodes one JSON value with numbers kept as json.Number.
func parseJSON(data []byte) (any, error) {
	if err := inputlimit.CheckJSON("", data); err != nil {
		return nil, fielderr.List{{Pkg: pkg, Detail: err.Error()}}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, fielderr.List{{Pkg: pkg, Detail: "empty document"}}
		}
		return nil, fielderr.List{{Pkg: pkg, Detail: "invalid JSON: " + err.Error()}}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fielderr.List{{Pkg: pkg, Detail: "invalid JSON: unexpected data after the top-level value"}}
	}
	return v, nil
}

// decodeInto assigns a generic JSON value to the value dst points to, strictly.
func decodeInto(v any, dst any) error {
	var c errs
	assign(&c, "", v, reflect.ValueOf(dst).Elem())
	return c.err()
}

// assign is a strict, reflective json.Unmarshal over an already parsed value: it reports
// every unknown field and type mismatch with its path instead of stopping at the first.
func assign(c *errs, p path, v any, dst reflect.Value) {
	if v == nil {
		return // null leaves the zero value, as encoding/json does
	}
	switch dst.Kind() {
	case reflect.Pointer:
		elem := reflect.New(dst.Type().Elem())
		assign(c, p, v, elem.Elem())
		dst.Set(elem)
	case reflect.Struct:
		assignStruct(c, p, v, dst)
	case reflect.Slice:
		assignSlice(c, p, v, dst)
	case reflect.Map:
		assignMap(c, p, v, dst)
	case reflect.String:
		if s, ok := as[string](c, p, v, "a string"); ok {
			dst.SetString(s)
		}
	case reflect.Bool:
		if b, ok := as[bool](c, p, v, "a boolean"); ok {
			dst.SetBool(b)
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		assignInteger(c, p, v, dst)
	default:
		// Only the types of this package reach assign; a new field kind is a programming error.
		panic("descriptor: cannot decode into " + dst.Type().String())
	}
}

// assignStruct assigns a JSON object to a struct, field by field in the order of the keys.
func assignStruct(c *errs, p path, v any, dst reflect.Value) {
	obj, ok := as[map[string]any](c, p, v, "an object")
	if !ok {
		return
	}
	fields := jsonFields(dst.Type())
	for _, k := range sortedKeys(obj) {
		i, ok := fields[k]
		if !ok {
			c.add(string(p.Child(k)), "unknown field")
			continue
		}
		assign(c, p.Child(k), obj[k], dst.Field(i))
	}
}

// assignSlice assigns a JSON list to a slice.
func assignSlice(c *errs, p path, v any, dst reflect.Value) {
	arr, ok := as[[]any](c, p, v, "a list")
	if !ok {
		return
	}
	s := reflect.MakeSlice(dst.Type(), len(arr), len(arr))
	for i, e := range arr {
		assign(c, p.Index(i), e, s.Index(i))
	}
	dst.Set(s)
}

// assignMap assigns a JSON object to a map, in the order of the keys.
func assignMap(c *errs, p path, v any, dst reflect.Value) {
	obj, ok := as[map[string]any](c, p, v, "an object")
	if !ok {
		return
	}
	m := reflect.MakeMapWithSize(dst.Type(), len(obj))
	for _, k := range sortedKeys(obj) {
		elem := reflect.New(dst.Type().Elem()).Elem()
		assign(c, p.Key(k), obj[k], elem)
		m.SetMapIndex(reflect.ValueOf(k).Convert(dst.Type().Key()), elem)
	}
	dst.Set(m)
}

// assignInteger assigns a JSON number to a signed or unsigned integer, which it must fit.
func assignInteger(c *errs, p path, v any, dst reflect.Value) {
	n, ok := as[json.Number](c, p, v, "a number")
	if !ok {
		return
	}
	bits := dst.Type().Bits()
	if dst.CanUint() {
		u, err := strconv.ParseUint(string(n), 10, bits)
		if err != nil {
			c.add(string(p), fmt.Sprintf("expected an integer from 0 to %d, got %s", uint64(math.MaxUint64)>>(64-bits), n))
			return
		}
		dst.SetUint(u)
		return
	}
	i, err := strconv.ParseInt(string(n), 10, bits)
	if err != nil {
		c.add(string(p), "expected an integer, got "+string(n))
		return
	}
	dst.SetInt(i)
}

// jsonFields maps the JSON names of a struct's fields to their indexes.
func jsonFields(t reflect.Type) map[string]int {
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = i
	}
	return m
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// as returns v as a T, or reports at p that it is not what ("a string") and returns false.
func as[T any](c *errs, p path, v any, what string) (T, bool) {
	t, ok := v.(T)
	if !ok {
		c.add(string(p), "expected "+what+", got "+kindOf(v))
	}
	return t, ok
}

// kindOf names the JSON kind of a parsed value for error messages.
func kindOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number:
		return "the number " + string(v)
	default:
		return fmt.Sprintf("%T", v)
	}
}
