package envoyratelimit

import (
	"testing"
)

const matchConfig = `domain: d
descriptors:
  - key: k
    value: exact
    rate_limit: {name: exact, unit: second, requests_per_unit: 1}
  - key: k
    value: "pre*"
    rate_limit: {name: prefix, unit: second, requests_per_unit: 1}
  - key: k
    value: "*mid*end"
    rate_limit: {name: middle, unit: second, requests_per_unit: 1}
  - key: k
    rate_limit: {name: keyonly, unit: second, requests_per_unit: 1}
  - key: a_b
    rate_limit: {name: quirk, unit: second, requests_per_unit: 1}
  - key: p
    value: v
    descriptors:
      - key: q
        rate_limit: {name: pv-q, unit: second, requests_per_unit: 1}
  - key: p
    rate_limit: {name: p-keyonly, unit: second, requests_per_unit: 1}
    descriptors:
      - key: r
        rate_limit: {name: p-r, unit: second, requests_per_unit: 1}
  - key: inner
    descriptors:
      - key: leaf
  - key: white
`

func TestMatch(t *testing.T) {
	cfg, err := Load([]File{{Key: "config.m", Data: []byte(matchConfig)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Domain("d")
	e := func(kv ...string) []Entry {
		var out []Entry
		for i := 0; i < len(kv); i += 2 {
			out = append(out, Entry{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	tests := []struct {
		name    string
		entries []Entry
		want    string // the matched limit's name, "" for none
	}{
		{"exact", e("k", "exact"), "exact"},
		{"exact wins over wildcard", e("k", "exact"), "exact"},
		{"trailing wildcard", e("k", "prefix"), "prefix"},
		{"wildcard matches the empty run", e("k", "pre"), "prefix"},
		{"wildcards anywhere", e("k", "xxmidyyend"), "middle"},
		{"wildcard order: first wins", e("k", "premidend"), "prefix"},
		{"key-only", e("k", "other"), "keyonly"},
		{"key-only with empty value", e("k", ""), "keyonly"},
		{"composite string quirk", e("a", "b"), "quirk"},
		{"unknown key", e("z", "1"), ""},
		{"request deeper than config", e("k", "exact", "x", "y"), ""},
		{"request shallower than config", e("p", "v"), ""},
		{"nested", e("p", "v", "q", "1"), "pv-q"},
		{"no backtracking to key-only", e("p", "v", "r", "1"), ""},
		{"key-only parent", e("p", "w", "r", "1"), "p-r"},
		{"key-only parent's own limit", e("p", "w"), "p-keyonly"},
		{"inner node without limit", e("inner", "x"), ""},
		{"whitelist leaf", e("inner", "x", "leaf", "y"), ""},
		{"whitelist", e("white", "x"), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ""
			if path := d.Match(tc.entries, nil); path != nil {
				if len(path) != len(tc.entries) {
					t.Errorf("Match(%v) has %d nodes, want %d", tc.entries, len(path), len(tc.entries))
				}
				got = path[len(path)-1].Limits[0].Name
			}
			if got != tc.want {
				t.Errorf("Match(%v) = %q, want %q", tc.entries, got, tc.want)
			}
		})
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"a*", "a", true},
		{"a*", "abc", true},
		{"*c", "abc", true},
		{"a*c", "abbbc", true},
		{"a*c", "abcd", false},
		{"*b*d*", "abcde", true},
		{"*b*d*", "acde", false},
		{"a**", "a", true},
		{"abc", "abc", true},
		{"abc", "abd", false},
		{"", "", true},
		{"*", "", true},
		{"a*a*a", "aaaa", true},
		{"a*a*a", "aa", false},
	}
	for _, tc := range tests {
		if got := globMatch(tc.pattern, tc.s); got != tc.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}
