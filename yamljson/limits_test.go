package yamljson_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/yamljson"
)

// laughs is a "billion laughs" document: level i is a sequence of ten aliases
// to level i-1, one level a line.
func laughs(levels int) string {
	var b strings.Builder
	b.WriteString(`a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]` + "\n")
	for i := 1; i < levels; i++ {
		name, prev := string(rune('a'+i)), string(rune('a'+i-1))
		fmt.Fprintf(&b, "%s: &%s [%s]\n", name, name, strings.TrimSuffix(strings.Repeat("*"+prev+",", 10), ","))
	}
	return b.String()
}

// nested is n flow sequences, one inside the other, around inner.
func nested(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

func TestConvertLimits(t *testing.T) {
	// Merge bomb: one mapping of 1,000 keys merged into 1,001 mappings.
	var keys []string
	for i := range 1000 {
		keys = append(keys, fmt.Sprintf("k%d: %d", i, i))
	}
	merges := "base: &b {" + strings.Join(keys, ", ") + "}\nl:\n" + strings.Repeat("- {<<: *b}\n", 1001)
	big := strings.Repeat("x", 1<<20)

	tests := []struct {
		name    string
		in      string
		wantErr string // "" for success
	}{
		{"aliases under the limit", laughs(5), ""},
		{"billion laughs", laughs(9), "yamljson: line 6: aliases and merge keys expand the document by more than 1000000 values"},
		{"merges under the limit", "base: &b {" + strings.Join(keys, ", ") + "}\nl:\n" + strings.Repeat("- {<<: *b}\n", 999), ""},
		{"merge bomb", merges, "yamljson: line 1003: aliases and merge keys expand the document by more than 1000000 values"},
		{"large aliased string under the limit", "s: &s " + big + "\nl: [" + strings.Repeat("*s,", 30) + "]\n", ""},
		{"large aliased string", "s: &s " + big + "\nl: [" + strings.Repeat("*s,", 40) + "]\n", "yamljson: line 2: aliases and merge keys expand the document by more than 33554432 bytes of JSON"},
		{"nesting at the limit", "a: &a " + nested(5000, "1") + "\nb: " + nested(4999, "*a") + "\n", ""},
		{"nesting through aliases beyond the limit", "a: &a " + nested(5000, "1") + "\nb: " + nested(5000, "*a") + "\n", "yamljson: line 2: collections nest more than 10000 deep"},
		{"nesting beyond the parser's limit", nested(10001, ""), "yamljson: line 1: exceeded max depth of 10000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := yamljson.Convert([]byte(tc.in))
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if gotErr != tc.wantErr {
				t.Fatalf("Convert(%.60q...) error = %q, want %q", tc.in, gotErr, tc.wantErr)
			}
			for _, d := range docs {
				if !json.Valid(d.JSON) {
					t.Errorf("Convert(%.60q...) JSON is not valid: %.100s", tc.in, d.JSON)
				}
			}
		})
	}
}
