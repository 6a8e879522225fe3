package yamljson_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"

	"github.com/rlpkit/rlpkit/inputlimit"
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

// limitCases are documents at and beyond each limit. wantErr is Convert's
// error; CheckNode, which counts a merged mapping as one value more, must
// refuse the same documents with a message holding wantCheck.
func limitCases() []struct{ name, in, wantErr, wantCheck string } {
	var keys []string
	for i := range 1000 {
		keys = append(keys, fmt.Sprintf("k%d: %d", i, i))
	}
	base := "base: &b {" + strings.Join(keys, ", ") + "}\nl:\n"
	mb := strings.Repeat("x", 1<<20)
	tooBig := fmt.Sprintf("the input's %d bytes exceed the limit of %d bytes (16 MiB)", inputlimit.MaxBytes+1, inputlimit.MaxBytes)
	const values, bytes, depth = "by more than 100000 values", "by more than 4194304 bytes", "nest more than 1000 deep"
	return []struct{ name, in, wantErr, wantCheck string }{
		{"aliases under the limit", laughs(4), "", ""},
		{"billion laughs", laughs(5), "yamljson: line 5: aliases and merge keys expand the document " + values, "line 5: aliases and merge keys expand the document " + values},
		{"merges under the limit", base + strings.Repeat("- {<<: *b}\n", 99), "", ""},
		{"merge bomb", base + strings.Repeat("- {<<: *b}\n", 101), "yamljson: line 103: aliases and merge keys expand the document " + values, values},
		{"large aliased string under the limit", "s: &s " + mb + "\nl: [" + strings.Repeat("*s,", 3) + "]\n", "", ""},
		{"large aliased string", "s: &s " + mb + "\nl: [" + strings.Repeat("*s,", 5) + "]\n", "yamljson: line 2: aliases and merge keys expand the document " + bytes + " of JSON", "line 2: aliases and merge keys expand the document " + bytes},
		{"nesting at the limit", "a: &a " + nested(500, "1") + "\nb: " + nested(499, "*a") + "\n", "", ""},
		{"nesting through aliases beyond the limit", "a: &a " + nested(500, "1") + "\nb: " + nested(500, "*a") + "\n", "yamljson: line 2: collections " + depth, "line 2: collections " + depth},
		{"nesting beyond the limit", "a: " + nested(1000, "1") + "\n", "yamljson: line 1: collections " + depth, "line 1: collections " + depth},
		{"nesting beyond the parser's limit", nested(10001, ""), "yamljson: line 1: exceeded max depth of 10000", ""},
		{"size at the limit", "a: " + strings.Repeat("x", inputlimit.MaxBytes-4) + "\n", "", ""},
		{"size beyond the limit", "a: " + strings.Repeat("x", inputlimit.MaxBytes-3) + "\n", "yamljson: " + tooBig, tooBig},
	}
}

func TestConvertLimits(t *testing.T) {
	for _, tc := range limitCases() {
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

func TestCheckNode(t *testing.T) {
	for _, tc := range limitCases() {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.in)
			err := yamljson.CheckSize(data)
			if err == nil {
				var n yaml.Node
				if yaml.Unmarshal(data, &n) != nil {
					return // the parser's own limit; nothing to walk
				}
				err = yamljson.CheckNode(&n)
			}
			switch {
			case tc.wantCheck == "" && err != nil:
				t.Fatalf("CheckNode(%.60q...) = %v, want nil", tc.in, err)
			case tc.wantCheck != "" && (err == nil || !strings.Contains(err.Error(), tc.wantCheck)):
				t.Fatalf("CheckNode(%.60q...) = %v, want an error holding %q", tc.in, err, tc.wantCheck)
			}
		})
	}
}

// TestCheckNodeCycle: yaml.v3 lets an alias refer to the node that holds
// it; a reader following aliases would never stop.
func TestCheckNodeCycle(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("a: &a\n  b: *a\n"), &n); err != nil {
		t.Fatal(err)
	}
	err := yamljson.CheckNode(&n)
	if err == nil || err.Error() != "yamljson: line 2: alias *a refers to a node that contains it" {
		t.Fatalf("CheckNode = %v, want the cycle at line 2", err)
	}
}
