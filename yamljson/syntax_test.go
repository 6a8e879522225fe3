package yamljson_test

import (
	"testing"

	"github.com/rlpkit/rlpkit/yamljson"
)

// TestSyntaxErrorLines: a syntax error names the line that is wrong, in any document of
// the stream, not the line where the enclosing mapping began.
func TestSyntaxErrorLines(t *testing.T) {
	const first = "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n" // lines 1-4
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"key indented too far", "a:\n  b: 1\n  c: 2\n   d: 3\n", "yamljson: line 4: mapping values are not allowed in this context (is this line indented deeper than it should be, or does a value hold \": \" and need quotes?)"},
		{"key indented too little", "a:\n  b:\n    c: 1\n   d: 2\n", "yamljson: line 4: did not find expected key (is this line indented like the lines around it?)"},
		{"sequence after a mapping", "x: 1\nb: 1\n- c\n", "yamljson: line 3: did not find expected key (is this line indented like the lines around it?)"},
		{"tab", "a:\n\tb: 1\n", "yamljson: line 2: found character that cannot start any token (YAML indents with spaces, not tabs)"},
		{"unclosed double quote", "a: 1\nb: \"x\nc: 2\n", "yamljson: line 2: found unexpected end of stream (is a quote, [ or { opened on this line closed?)"},
		{"unclosed single quote", "a: 1\nb: 'x\nc: 2\n", "yamljson: line 2: found unexpected end of stream (is a quote, [ or { opened on this line closed?)"},
		{"unclosed flow list", "a: 1\nb: [1, 2\nc: 3\n", "yamljson: line 2: did not find expected ',' or ']'"},
		{"in the second document, indented too far", first + "metadata:\n  name: b\n   labels: {x: y}\n", "yamljson: document 1: line 7: mapping values are not allowed in this context (is this line indented deeper than it should be, or does a value hold \": \" and need quotes?)"},
		{"in the second document, indented too little", first + "metadata:\n  name: b\n  labels:\n    x: y\n   z: w\n", "yamljson: document 1: line 9: did not find expected key (is this line indented like the lines around it?)"},
		{"in the second document, tab", first + "metadata:\n\tname: b\n", "yamljson: document 1: line 6: found character that cannot start any token (YAML indents with spaces, not tabs)"},
		{"in the second document, unclosed quote", first + "metadata:\n  name: \"b\n  labels: {x: y}\n", "yamljson: document 1: line 6: found unexpected end of stream (is a quote, [ or { opened on this line closed?)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := yamljson.Convert([]byte(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Errorf("Convert(%q) error = %v, want %s", tc.in, err, tc.want)
			}
		})
	}
}
