package main

import (
	"fmt"
	"strings"
)

// authFlag collects the --auth attributes of "rlpkit descriptors": the auth.* attributes an
// AuthPolicy's response would give the request, as a nested map.
type authFlag map[string]any

// set adds one 'dotted.name=value' attribute; the name may start with "auth.". The value
// is a string, as Authorino's identity and response fields mostly are.
func (a authFlag) set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimPrefix(strings.TrimSpace(name), "auth.")
	if !ok || name == "" {
		return fmt.Errorf("%q: want 'dotted.name=value', e.g. identity.userid=alice", s)
	}
	parts := strings.Split(name, ".")
	m := map[string]any(a)
	for i, p := range parts {
		if p == "" {
			return fmt.Errorf("%q: empty segment in the name %q", s, name)
		}
		if i == len(parts)-1 {
			if _, isMap := m[p].(map[string]any); isMap {
				return fmt.Errorf("%q: auth.%s already holds attributes below it", s, name)
			}
			m[p] = value
			break
		}
		sub, isMap := m[p].(map[string]any)
		if !isMap {
			if _, taken := m[p]; taken {
				return fmt.Errorf("%q: auth.%s is already a value", s, strings.Join(parts[:i+1], "."))
			}
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	return nil
}
