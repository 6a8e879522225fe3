package yamljson_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/yamljson"
)

// convertOne converts a stream that must hold exactly one document.
func convertOne(t *testing.T, in string) string {
	t.Helper()
	docs, err := yamljson.Convert([]byte(in))
	if err != nil {
		t.Fatalf("Convert(%q) error: %v", in, err)
	}
	if len(docs) != 1 {
		t.Fatalf("Convert(%q) = %d documents, want 1", in, len(docs))
	}
	return string(docs[0].JSON)
}

func TestConvertScalars(t *testing.T) {
	tests := []struct {
		name string
		in   string // the value of key v
		want string // its JSON
	}{
		{"tilde", "~", "null"},
		{"null", "null", "null"},
		{"Null", "Null", "null"},
		{"NULL", "NULL", "null"},
		{"empty", "", "null"},
		{"true", "true", "true"},
		{"True", "True", "true"},
		{"FALSE", "FALSE", "false"},
		{"yes stays a string", "yes", `"yes"`},
		{"no stays a string", "no", `"no"`},
		{"on stays a string", "on", `"on"`},
		{"off stays a string", "off", `"off"`},
		{"y stays a string", "y", `"y"`},
		{"Yes stays a string", "Yes", `"Yes"`},
		{"zero", "0", "0"},
		{"negative", "-5", "-5"},
		{"plus sign", "+5", "5"},
		{"separators", "1_000", "1000"},
		{"hex", "0x1F", "31"},
		{"octal 1.2", "0o17", "15"},
		{"octal 1.1", "017", "15"},
		{"binary", "0b101", "5"},
		{"negative binary", "-0b101", "-5"},
		{"max int64", "9223372036854775807", "9223372036854775807"},
		{"min int64", "-9223372036854775808", "-9223372036854775808"},
		{"max uint64", "18446744073709551615", "18446744073709551615"},
		{"big integer", "123456789012345678901234567890", "123456789012345678901234567890"},
		{"big negative integer", "-123456789012345678901234567890", "-123456789012345678901234567890"},
		{"big integer with separators and plus", "+1_000_000_000_000_000_000_000", "1000000000000000000000"},
		{"integer beyond float range", strings.Repeat("9", 400), strings.Repeat("9", 400)},
		{"leading zero, not octal", "0999", "999"},
		{"float", "1.5", "1.5"},
		{"trailing zero dropped", "1.50", "1.5"},
		{"negative zero", "-0.0", "-0.0"},
		{"integral float", "1e3", "1000"},
		{"small float", "1e-7", "1e-7"},
		{"large float", "1e21", "1e+21"},
		{"leading dot", ".5", "0.5"},
		{"signed leading dot", "-.5", "-0.5"},
		{"float with separators", "1_0.5", "10.5"},
		{"float too large is a string", "1e400", `"1e400"`},
		{"inf without dot is a string", "inf", `"inf"`},
		{"nan without dot is a string", "nan", `"nan"`},
		{"double quoted number", `"123"`, `"123"`},
		{"single quoted bool", `'true'`, `"true"`},
		{"quoted null", `"null"`, `"null"`},
		{"str tag", "!!str 123", `"123"`},
		{"str tag on bool", "!!str true", `"true"`},
		{"long str tag", "!<tag:yaml.org,2002:str> 1", `"1"`},
		{"int tag on quoted", `!!int "0x10"`, "16"},
		{"int tag on big integer", "!!int 123456789012345678901234567890", "123456789012345678901234567890"},
		{"float tag on integer", "!!float 1", "1"},
		{"float tag", "!!float 2.50", "2.5"},
		{"bool tag", "!!bool true", "true"},
		{"null tag", "!!null ~", "null"},
		{"null tag on nothing", "!!null", "null"},
		{"timestamp tag", "!!timestamp 2024-01-02", `"2024-01-02"`},
		{"non-specific tag", "! 12", "12"},
		{"date stays as written", "2024-01-02", `"2024-01-02"`},
		{"timestamp stays as written", "2001-12-14t21:59:43.10-05:00", `"2001-12-14t21:59:43.10-05:00"`},
		{"plain string", "hello world", `"hello world"`},
		{"html is not escaped", "<a&b>", `"<a&b>"`},
		{"escaped tab", `"a\tb"`, `"a\tb"`},
		{"escaped control", `"\x01"`, `"\u0001"`},
		{"escaped NUL", `"\0"`, `"\u0000"`},
		{"escaped DEL", `"\x7f"`, `"\u007f"`},
		{"escaped NEL", `"\N"`, `"\u0085"`},
		{"escaped line separator", `"\L"`, `"\u2028"`},
		{"quote and backslash", `'say "hi" \ bye'`, `"say \"hi\" \\ bye"`},
		{"non-ASCII stays", "héllo ✓ 😀", `"héllo ✓ 😀"`},
		{"literal block", "|\n  line1\n  line2\n", `"line1\nline2\n"`},
		{"folded block", ">-\n  a\n  b\n", `"a b"`},
		{"merge sign as a value", "<<", `"<<"`},
		{"empty quoted", `""`, `""`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := "v: " + tc.in + "\n"
			if got, want := convertOne(t, in), `{"v":`+tc.want+`}`; got != want {
				t.Errorf("Convert(%q) = %s, want %s", in, got, want)
			}
		})
	}
}

func TestConvertCollections(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"key order kept", "z: 1\na: 2\nm: 3\n", `{"z":1,"a":2,"m":3}`},
		{"nested", "a:\n  b:\n    - c\n    - d: e\n", `{"a":{"b":["c",{"d":"e"}]}}`},
		{"flow", "{a: [1, 2], b: {c: d}}", `{"a":[1,2],"b":{"c":"d"}}`},
		{"empty collections", "a: []\nb: {}\n", `{"a":[],"b":{}}`},
		{"top-level sequence", "- 1\n- two\n", `[1,"two"]`},
		{"top-level scalar", "hello", `"hello"`},
		{"JSON input", `{"a": [1, 2.5, true, null, "x"], "b": {}}`, `{"a":[1,2.5,true,null,"x"],"b":{}}`},
		{"explicit map and seq tags", "a: !!map {b: !!seq [1]}\n", `{"a":{"b":[1]}}`},
		{"integer key", "1: a\n", `{"1":"a"}`},
		{"bool key", "true: b\n", `{"true":"b"}`},
		{"null key", "~: c\n", `{"null":"c"}`},
		{"empty key", "? \n: d\n", `{"null":"d"}`},
		{"hex key", "0x10: e\n", `{"16":"e"}`},
		{"float key", "1.50: f\n", `{"1.5":"f"}`},
		{"infinite key as written", ".inf: g\n", `{".inf":"g"}`},
		{"quoted key", `"1": h`, `{"1":"h"}`},
		{"key needing escapes", "\"a\\\"b\\n\": 1\n", `{"a\"b\n":1}`},
		{"quoted merge sign is a key", "\"<<\": 1\n", `{"<<":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := convertOne(t, tc.in); got != tc.want {
				t.Errorf("Convert(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestConvertAnchors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"alias to scalar", "a: &x 1\nb: *x\n", `{"a":1,"b":1}`},
		{"alias to sequence", "a: &x [1, 2]\nb: *x\n", `{"a":[1,2],"b":[1,2]}`},
		{"alias to mapping", "a: &x {k: v}\nb: [*x, *x]\n", `{"a":{"k":"v"},"b":[{"k":"v"},{"k":"v"}]}`},
		{"alias as key", "a: &k name\n*k : 2\n", `{"a":"name","name":2}`},
		{"anchored key used as value", "&k key: 1\nv: *k\n", `{"key":1,"v":"key"}`},
		{"anchor redefined", "a: &x 1\nb: &x 2\nc: *x\n", `{"a":1,"b":2,"c":2}`},
		{
			"merge: explicit key after it wins",
			"base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n",
			`{"base":{"a":1,"b":2},"x":{"a":1,"b":3}}`,
		},
		{
			"merge: explicit key before it wins",
			"base: &b {a: 1, b: 2}\nx:\n  b: 3\n  <<: *b\n",
			`{"base":{"a":1,"b":2},"x":{"b":3,"a":1}}`,
		},
		{
			"merge sequence: earlier mappings win",
			"a: &a {k: 1, x: 1}\nb: &b {k: 2, y: 2}\nc:\n  <<: [*a, *b]\n  z: 3\n",
			`{"a":{"k":1,"x":1},"b":{"k":2,"y":2},"c":{"k":1,"x":1,"y":2,"z":3}}`,
		},
		{
			"merge of a mapping that merges",
			"a: &a {k: 1}\nb: &b {<<: *a, j: 2}\nc: {<<: *b, i: 3}\n",
			`{"a":{"k":1},"b":{"k":1,"j":2},"c":{"k":1,"j":2,"i":3}}`,
		},
		{"inline merge", "c: {<<: {a: 1}, b: 2}\n", `{"c":{"a":1,"b":2}}`},
		{"merge of an aliased sequence", "l: &l [{a: 1}, {a: 2, b: 2}]\nc: {<<: *l}\n", `{"l":[{"a":1},{"a":2,"b":2}],"c":{"a":1,"b":2}}`},
		{"merge of an empty mapping", "c: {<<: {}, a: 1}\n", `{"c":{"a":1}}`},
		{"explicit merge tag", "a: &a {k: 1}\nc: {!!merge <<: *a}\n", `{"a":{"k":1},"c":{"k":1}}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := convertOne(t, tc.in); got != tc.want {
				t.Errorf("Convert(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestConvertErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"duplicate key", "a: 1\nb: 2\na: 3\n", `yamljson: line 3: duplicate key "a" (first at line 1)`},
		{
			"duplicate nested key",
			"spec:\n  rateLimits:\n    - max_value: 5\n      variables: []\n      seconds: 10\n      conditions: []\n      seconds: 20\n",
			`yamljson: line 7: duplicate key "seconds" (first at line 5)`,
		},
		{"keys equal as strings", "1: a\n\"1\": b\n", `yamljson: line 2: duplicate key "1" (first at line 1)`},
		{"nulls equal as strings", "~: a\nnull: b\n", `yamljson: line 2: duplicate key "null" (first at line 1)`},
		{"duplicate merge keys", "a: &a {k: 1}\nc:\n  <<: *a\n  <<: *a\n", `yamljson: line 4: duplicate key "<<" (first at line 3)`},
		{"mapping as key", "? {a: 1}\n: x\n", "yamljson: line 1: a mapping cannot be a mapping key; JSON keys are strings"},
		{"sequence as key", "{[a]: x}", "yamljson: line 1: a sequence cannot be a mapping key; JSON keys are strings"},
		{"alias to a mapping as key", "a: &m {k: 1}\n? *m\n: x\n", "yamljson: line 2: a mapping cannot be a mapping key; JSON keys are strings"},
		{"infinity", "a:\n  b: .inf\n", "yamljson: line 2: .inf is not a finite number; JSON cannot represent it"},
		{"negative infinity", "a: -.Inf\n", "yamljson: line 1: -.Inf is not a finite number; JSON cannot represent it"},
		{"not a number", "a: .NaN\n", "yamljson: line 1: .NaN is not a finite number; JSON cannot represent it"},
		{"infinity by float tag", "a: !!float .inf\n", "yamljson: line 1: .inf is not a finite number; JSON cannot represent it"},
		{"binary", "a: 1\nb: !!binary aGVsbG8=\n", "yamljson: line 2: tag !!binary cannot be represented in JSON"},
		{"local tag", "a: !secret x\n", "yamljson: line 1: tag !secret cannot be represented in JSON"},
		{"global tag", "a: !<tag:example.com,2024:x> y\n", "yamljson: line 1: tag tag:example.com,2024:x cannot be represented in JSON"},
		{"set", "a: !!set {x, y}\n", "yamljson: line 1: tag !!set cannot be represented in JSON"},
		{"omap", "a: !!omap [x: 1]\n", "yamljson: line 1: tag !!omap cannot be represented in JSON"},
		{"map tag on scalar", "a: !!map x\n", "yamljson: line 1: tag !!map cannot be represented in JSON"},
		{"str tag on mapping", "a: !!str {b: 1}\n", "yamljson: line 1: tag !!str cannot be represented in JSON"},
		{"binary key", "!!binary aGk=: 1\n", "yamljson: line 1: tag !!binary cannot be represented in JSON"},
		{"int tag on word", "a: !!int abc\n", `yamljson: line 1: "abc" is not a valid !!int`},
		{"int tag on float", "a: !!int 1.5\n", `yamljson: line 1: "1.5" is not a valid !!int`},
		{"float tag on word", "a: !!float abc\n", `yamljson: line 1: "abc" is not a valid !!float`},
		{"bool tag on yes", "a: !!bool yes\n", `yamljson: line 1: "yes" is not a valid !!bool`},
		{"null tag on word", "a: !!null x\n", `yamljson: line 1: "x" is not a valid !!null`},
		{"timestamp tag on word", "a: !!timestamp soon\n", `yamljson: line 1: "soon" is not a valid !!timestamp`},
		{"merge tag on a value", "a: !!merge x\n", "yamljson: line 1: tag !!merge belongs only on a << key"},
		{"merge of a scalar", "a:\n  <<: 1\n", "yamljson: line 2: a merge key takes a mapping or a sequence of mappings, not a scalar"},
		{"merge of a sequence of scalars", "a:\n  <<: [1]\n", "yamljson: line 2: a merge key takes a mapping or a sequence of mappings, not a sequence holding a scalar"},
		{"merge of a nested sequence", "a: {<<: [[]]}\n", "yamljson: line 1: a merge key takes a mapping or a sequence of mappings, not a sequence holding a sequence"},
		{"merge of itself", "a: &a {<<: *a}\n", "yamljson: line 1: alias *a refers to a node that contains it"},
		{"alias cycle", "a: &a [1, *a]\n", "yamljson: line 1: alias *a refers to a node that contains it"},
		{"nested alias cycle", "a: &a\n  b: &b\n    - *a\n", "yamljson: line 3: alias *a refers to a node that contains it"},
		{"unknown anchor", "a: *nope\n", "yamljson: line 1: unknown anchor 'nope' referenced"},
		{"syntax error", "a: b\nc: [\n", "yamljson: line 2: did not find expected node content"},
		{"bad indentation", "a: b\n  c: d\n", "yamljson: line 2: mapping values are not allowed in this context (is this line indented deeper than it should be, or does a value hold \": \" and need quotes?)"},
		{
			"every problem reported",
			"a: 1\na: 2\nb: .nan\nc: !!binary eA==\n",
			"yamljson: line 2: duplicate key \"a\" (first at line 1)\n" +
				"yamljson: line 3: .nan is not a finite number; JSON cannot represent it\n" +
				"yamljson: line 4: tag !!binary cannot be represented in JSON",
		},
		{
			"problems under a duplicate key reported",
			"a: 1\na: {b: .inf}\n",
			"yamljson: line 2: duplicate key \"a\" (first at line 1)\n" +
				"yamljson: line 2: .inf is not a finite number; JSON cannot represent it",
		},
		{
			"stream names documents",
			"a: 1\n---\nb: 1\nb: 2\n---\nc: [\n",
			"yamljson: document 1: line 4: duplicate key \"b\" (first at line 3)\n" +
				"yamljson: document 2: line 6: did not find expected node content",
		},
		{
			"alias across documents",
			"a: &x 1\n---\nb: *x\n",
			"yamljson: document 1: line 3: alias *x refers to an anchor in document 0; anchors do not reach across documents",
		},
		{
			"alias key across documents",
			"a: &x k\n---\n*x : 1\n",
			"yamljson: document 1: line 3: alias *x refers to an anchor in document 0; anchors do not reach across documents",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := yamljson.Convert([]byte(tc.in))
			if err == nil {
				t.Fatalf("Convert(%q) = %d documents, nil error; want error %q", tc.in, len(docs), tc.want)
			}
			if got := err.Error(); got != tc.want {
				t.Errorf("Convert(%q) error =\n%s\nwant\n%s", tc.in, got, tc.want)
			}
			if docs != nil {
				t.Errorf("Convert(%q) returned %d documents with an error, want none", tc.in, len(docs))
			}
		})
	}
}

func TestErrorValues(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []yamljson.Error // Doc, Line and Msg of each
	}{
		{
			name: "one problem",
			in:   "a: 1\na: 2\n",
			want: []yamljson.Error{{Doc: 0, Line: 2, Msg: `duplicate key "a" (first at line 1)`}},
		},
		{
			name: "problems in two documents",
			in:   "a: .inf\n---\nb: !x 1\n",
			want: []yamljson.Error{
				{Doc: 0, Line: 1, Msg: ".inf is not a finite number; JSON cannot represent it"},
				{Doc: 1, Line: 3, Msg: "tag !x cannot be represented in JSON"},
			},
		},
		{
			name: "syntax error",
			in:   "a: 1\n---\nb: [\n",
			want: []yamljson.Error{{Doc: 1, Line: 3, Msg: "did not find expected node content"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := yamljson.Convert([]byte(tc.in))
			var errs []error
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				errs = j.Unwrap()
			} else if err != nil {
				errs = []error{err}
			}
			var got []yamljson.Error
			for _, e := range errs {
				var ye *yamljson.Error
				if !errors.As(e, &ye) {
					t.Fatalf("Convert(%q) error %v is a %T, want *yamljson.Error", tc.in, e, e)
				}
				got = append(got, yamljson.Error{Doc: ye.Doc, Line: ye.Line, Msg: ye.Msg})
			}
			if diff := cmp.Diff(tc.want, got, cmp.Comparer(func(a, b yamljson.Error) bool {
				return a.Doc == b.Doc && a.Line == b.Line && a.Msg == b.Msg
			})); diff != "" {
				t.Errorf("Convert(%q) errors (-want +got):\n%s", tc.in, diff)
			}
			var first *yamljson.Error
			if !errors.As(err, &first) || first.Msg != tc.want[0].Msg {
				t.Errorf("errors.As(Convert(%q) error) = %v, want the first error %q", tc.in, first, tc.want[0].Msg)
			}
		})
	}
}

// docSummary is what TestConvertStream compares of a Document.
type docSummary struct {
	Index, StartLine int
	Empty            bool
	JSON             string
}

func TestConvertStream(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []docSummary
	}{
		{"nothing", "", nil},
		{"only comments", "# nothing here\n\n# at all\n", nil},
		{"one implicit document", "\n# header\na: 1\n", []docSummary{{0, 3, false, `{"a":1}`}}},
		{
			"documents of every kind",
			"# leading comment\n---\na: 1\n---\n# only a comment\n---\n--- ~\n---\nb: [x]\n",
			[]docSummary{
				{0, 2, false, `{"a":1}`},
				{1, 4, true, "null"},
				{2, 6, true, "null"},
				{3, 7, false, "null"},
				{4, 8, false, `{"b":["x"]}`},
			},
		},
		{"trailing separator", "a: 1\n---\n", []docSummary{{0, 1, false, `{"a":1}`}, {1, 2, true, "null"}}},
		{"document end markers", "--- a\n...\n--- b\n...\n", []docSummary{{0, 1, false, `"a"`}, {1, 3, false, `"b"`}}},
		{"explicit empty string", `--- ""`, []docSummary{{0, 1, false, `""`}}},
		{"anchored nothing", "--- &a\n", []docSummary{{0, 1, false, "null"}}},
		{"anchors of each document", "a: &x 1\nb: *x\n---\na: &x 2\nb: *x\n", []docSummary{{0, 1, false, `{"a":1,"b":1}`}, {1, 3, false, `{"a":2,"b":2}`}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := yamljson.Convert([]byte(tc.in))
			if err != nil {
				t.Fatalf("Convert(%q) error: %v", tc.in, err)
			}
			var got []docSummary
			for _, d := range docs {
				got = append(got, docSummary{d.Index, d.StartLine, d.Empty(), string(d.JSON)})
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Convert(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestToJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr string
	}{
		{"one document", "a: 1\n", `{"a":1}`, ""},
		{"empty documents around it", "---\n---\na: 1\n---\n", `{"a":1}`, ""},
		{"explicit null counts", "--- null\n", "null", ""},
		{"nothing", "", "", "yamljson: no document; want exactly one"},
		{"only empty documents", "---\n---\n", "", "yamljson: no document; want exactly one"},
		{"two documents among empty ones", "---\na: 1\n---\n---\nb: 2\n", "", "yamljson: document 2: line 4: a second document, after document 0; want exactly one"},
		{"two documents", "a: 1\n---\nb: 2\n", "", "yamljson: document 1: line 2: a second document, after document 0; want exactly one"},
		{"conversion error", "a: .inf\n", "", "yamljson: line 1: .inf is not a finite number; JSON cannot represent it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := yamljson.ToJSON([]byte(tc.in))
			gotErr := ""
			if err != nil {
				gotErr = err.Error()
			}
			if string(got) != tc.want || gotErr != tc.wantErr {
				t.Errorf("ToJSON(%q) = %s, %q; want %s, %q", tc.in, got, gotErr, tc.want, tc.wantErr)
			}
		})
	}
}
