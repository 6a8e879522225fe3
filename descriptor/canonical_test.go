package descriptor

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

func TestEquivalent(t *testing.T) {
	tests := []struct {
		name string
		a, b string // GatewayActions in JSON
		want bool
	}{
		{name: "rules empty or absent", a: `{"rules": [], "configurations": [{"actions": [{"remote_address": {}}]}]}`, b: `{"configurations": [{"actions": [{"remote_address": {}}]}]}`, want: true},
		{name: "a rule that matches everything", a: `{"rules": [{"paths": ["/a"]}, {}]}`, b: `{}`, want: true},
		{name: "rule fields empty or absent", a: `{"rules": [{"paths": ["/a"], "methods": [], "hosts": []}]}`, b: `{"rules": [{"paths": ["/a"]}]}`, want: true},
		{name: "rule fields are sets", a: `{"rules": [{"paths": ["/b", "/a", "/a"], "methods": ["POST", "GET"], "hosts": ["A.example.com."]}]}`, b: `{"rules": [{"paths": ["/a", "/b"], "methods": ["GET", "POST"], "hosts": ["a.example.com"]}]}`, want: true},
		{name: "configurations empty or absent", a: `{"configurations": []}`, b: `{}`, want: true},
		{name: "generic_key default key", a: `{"configurations": [{"actions": [{"generic_key": {"descriptor_key": "generic_key", "descriptor_value": "v"}}]}]}`, b: `{"configurations": [{"actions": [{"generic_key": {"descriptor_value": "v"}}]}]}`, want: true},
		{name: "generic_key other key", a: `{"configurations": [{"actions": [{"generic_key": {"descriptor_key": "k", "descriptor_value": "v"}}]}]}`, b: `{"configurations": [{"actions": [{"generic_key": {"descriptor_value": "v"}}]}]}`},
		{
			name: "header_value_match defaults",
			a:    `{"configurations": [{"actions": [{"header_value_match": {"descriptor_key": "header_match", "descriptor_value": "v", "expect_match": true, "headers": [{"name": "X-A", "present_match": true}]}}]}]}`,
			b:    `{"configurations": [{"actions": [{"header_value_match": {"descriptor_value": "v", "headers": [{"name": "x-a"}]}}]}]}`,
			want: true,
		},
		{
			name: "expect_match false differs",
			a:    `{"configurations": [{"actions": [{"header_value_match": {"descriptor_value": "v", "expect_match": false, "headers": [{"name": "x"}]}}]}]}`,
			b:    `{"configurations": [{"actions": [{"header_value_match": {"descriptor_value": "v", "headers": [{"name": "x"}]}}]}]}`,
		},
		{
			name: "metadata default source and empty path",
			a:    `{"configurations": [{"actions": [{"metadata": {"descriptor_key": "k", "metadata_key": {"key": "ns", "path": [{"key": "a"}]}, "source": "DYNAMIC"}}]}]}`,
			b:    `{"configurations": [{"actions": [{"metadata": {"descriptor_key": "k", "metadata_key": {"key": "ns", "path": [{"key": "a"}]}}}]}]}`,
			want: true,
		},
		{
			name: "metadata sources differ",
			a:    `{"configurations": [{"actions": [{"metadata": {"descriptor_key": "k", "metadata_key": {"key": "ns", "path": [{"key": "a"}]}, "source": "ROUTE_ENTRY"}}]}]}`,
			b:    `{"configurations": [{"actions": [{"metadata": {"descriptor_key": "k", "metadata_key": {"key": "ns", "path": [{"key": "a"}]}}}]}]}`,
		},
		{name: "request header names are case-insensitive", a: `{"configurations": [{"actions": [{"request_headers": {"header_name": "X-User", "descriptor_key": "u"}}]}]}`, b: `{"configurations": [{"actions": [{"request_headers": {"header_name": "x-user", "descriptor_key": "u"}}]}]}`, want: true},
		{name: "action order matters", a: `{"configurations": [{"actions": [{"remote_address": {}}, {"generic_key": {"descriptor_value": "v"}}]}]}`, b: `{"configurations": [{"actions": [{"generic_key": {"descriptor_value": "v"}}, {"remote_address": {}}]}]}`},
		{name: "hits_addend differs", a: `{"configurations": [{"actions": [{"remote_address": {}}], "hits_addend": {"number": 2}}]}`, b: `{"configurations": [{"actions": [{"remote_address": {}}], "hits_addend": {"number": 1}}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, b := decodeAction(t, tc.a), decodeAction(t, tc.b)
			if got := a.Equivalent(b); got != tc.want {
				t.Errorf("%s.Equivalent(%s) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if got := b.Equivalent(a); got != tc.want {
				t.Errorf("%s.Equivalent(%s) = %v, want %v", tc.b, tc.a, got, tc.want)
			}
		})
	}
}

func decodeAction(t *testing.T, s string) GatewayAction {
	t.Helper()
	var ga GatewayAction
	if err := json.Unmarshal([]byte(s), &ga); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return ga
}

// TestCanonicalCoversEveryField walks every field reachable from GatewayAction by reflection,
// so that a field added to the types must also be added to the canonical form: changing any
// leaf of a fully populated action must change its canonical form, an empty list must be
// equivalent to an absent one, and the canonical form must not share memory with its input.
func TestCanonicalCoversEveryField(t *testing.T) {
	var full GatewayAction
	fill(reflect.ValueOf(&full).Elem())
	leaves := visit(reflect.ValueOf(&full).Elem(), "", func(string, reflect.Value) {})
	if len(leaves) < 30 {
		t.Fatalf("found %d leaves in a full GatewayAction, want at least 30: %v", len(leaves), leaves)
	}
	for i, leaf := range leaves {
		changed := full.DeepCopy()
		n := 0
		visit(reflect.ValueOf(changed).Elem(), "", func(_ string, v reflect.Value) {
			if n == i {
				change(v)
			}
			n++
		})
		if full.Equivalent(*changed) {
			t.Errorf("changing %s leaves the canonical form unchanged: Canonical drops the field", leaf)
		}
	}
	for _, list := range lists(reflect.TypeOf(full), "") {
		absent, empty := full.DeepCopy(), full.DeepCopy()
		setList(reflect.ValueOf(absent).Elem(), list, false)
		setList(reflect.ValueOf(empty).Elem(), list, true)
		if !absent.Equivalent(*empty) {
			t.Errorf("%s empty is not equivalent to %s absent", list, list)
		}
	}
	before := full.DeepCopy()
	canon := full.Canonical()
	visit(reflect.ValueOf(&canon).Elem(), "", func(_ string, v reflect.Value) { change(v) })
	if !reflect.DeepEqual(full, *before) {
		t.Errorf("changing the canonical form changed its input: Canonical shares memory")
	}
}

// fill sets every pointer, one element of every slice, and every scalar to a non-default
// value.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0))
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i))
		}
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Uint64, reflect.Uint32:
		v.SetUint(1)
	default:
		panic("fill: add a case for " + v.Kind().String())
	}
}

// visit calls f on every scalar leaf of v, in field order, and returns their paths.
func visit(v reflect.Value, path string, f func(string, reflect.Value)) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return visit(v.Elem(), path, f)
	case reflect.Slice:
		var out []string
		for i := range v.Len() {
			out = append(out, visit(v.Index(i), fmt.Sprintf("%s[%d]", path, i), f)...)
		}
		return out
	case reflect.Struct:
		var out []string
		for i := range v.NumField() {
			out = append(out, visit(v.Field(i), path+"."+v.Type().Field(i).Name, f)...)
		}
		return out
	}
	f(path, v)
	return []string{path}
}

// change gives a scalar another value that no default or case folding maps back.
func change(v reflect.Value) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("changed")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Uint64, reflect.Uint32:
		v.SetUint(v.Uint() + 1)
	}
}

// lists returns the paths (".Rules[0].Paths" style, through the first element) of every
// slice field reachable from t.
func lists(t reflect.Type, path string) []string {
	switch t.Kind() {
	case reflect.Pointer:
		return lists(t.Elem(), path)
	case reflect.Slice:
		return append([]string{path}, lists(t.Elem(), path+"[0]")...)
	case reflect.Struct:
		var out []string
		for i := range t.NumField() {
			out = append(out, lists(t.Field(i).Type, path+"."+t.Field(i).Name)...)
		}
		return out
	}
	return nil
}

// setList sets the slice at path (as lists returns it) to nil, or to an empty slice.
func setList(v reflect.Value, path string, empty bool) {
	var walk func(v reflect.Value, p string)
	walk = func(v reflect.Value, p string) {
		switch v.Kind() {
		case reflect.Pointer:
			walk(v.Elem(), p)
		case reflect.Slice:
			if p == path {
				if empty {
					v.Set(reflect.MakeSlice(v.Type(), 0, 0))
				} else {
					v.Set(reflect.Zero(v.Type()))
				}
				return
			}
			walk(v.Index(0), p+"[0]")
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), p+"."+v.Type().Field(i).Name)
			}
		}
	}
	walk(v, "")
}
