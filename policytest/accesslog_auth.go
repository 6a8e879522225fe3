package policytest

import (
	"maps"
	"slices"
	"strings"
)

// nestAuth turns dotted auth.* attribute names ("identity.userid") into the nested map
// wasm-shim's evaluation reads. A name that is both a value and a prefix of another keeps
// the longer names.
func nestAuth[V any](flat map[string]V) map[string]any {
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(flat)) {
		parts := strings.Split(name, ".")
		m := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		if _, isMap := m[parts[len(parts)-1]].(map[string]any); !isMap {
			m[parts[len(parts)-1]] = flat[name]
		}
	}
	return out
}
