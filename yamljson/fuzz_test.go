package yamljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// FuzzConvert checks that no input panics, that every converted document is
// valid JSON of exactly the measured size whose every path has a line in the
// input, that the JSON converts back to itself, and that its values agree
// with what yaml.v3 decodes where both succeed and the package documents no
// difference.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{
		"a: 1\nb: [1, 2.5, yes, no, ~, \"q\"]\nc: {d: e}\n",
		"a: 1\na: 2\n",
		"x: &a {k: 1, j: 2}\ny:\n  <<: *a\n  k: 3\n",
		"a: &a [*a]\n",
		"l: &l [{a: 1}, {b: 2}]\nm: {<<: *l, c: 3}\n",
		"- .inf\n- !!binary aGk=\n- !!str 12\n- !!int \"0x10\"\n",
		"---\n---\na: 1\n--- ~\n...\n",
		"1: a\ntrue: b\n~: c\n1.50: d\n0x10: e\n? [x]\n: y\n",
		"big: 123456789012345678901234567890\nneg: -0.0\nf: 1e-7\nt: 2024-01-02\n",
		"s: \"\\0\\x7f\\N\\L\\P\\ufeff\\uffff\\t\"\n",
		`{"a": [1, 2.5, true, null, "x"], "b": {}}`,
		"a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a,*a]\nc: [*b,*b,*b]\n",
		"a: |\n  text\n  more\nb: >-\n  folded\n  line\n",
		"a: &x 1\n---\nb: *x\n",
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("testdata/policies.yaml"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Convert(data)
		if _, jerr := ToJSON(data); err != nil && jerr == nil {
			t.Fatalf("Convert(%q) error %v, but ToJSON succeeds", data, err)
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "yamljson: ") {
				t.Fatalf("Convert(%q) error %q lacks the package prefix", data, err)
			}
			return
		}
		lines := maxLines(data)
		for _, d := range docs {
			if !json.Valid(d.JSON) {
				t.Fatalf("Convert(%q) document %d: invalid JSON %q", data, d.Index, d.JSON)
			}
			if int64(len(d.JSON)) != d.root.size {
				t.Fatalf("Convert(%q) document %d: len(JSON) = %d, measured %d", data, d.Index, len(d.JSON), d.root.size)
			}
			for _, p := range append(paths(d.JSON, 64), string(data)) {
				if l := d.Line(p); l < 1 || l > lines {
					t.Fatalf("Convert(%q) document %d: Line(%q) = %d, want 1..%d", data, d.Index, p, l, lines)
				}
			}
			again, err := Convert(d.JSON)
			if err != nil {
				if longestKey(d.JSON) > 1024/6-2 {
					continue // YAML allows at most 1024 characters in an implicit key
				}
				t.Fatalf("Convert(%q) document %d: Convert(%s) error: %v", data, d.Index, d.JSON, err)
			}
			if len(again) != 1 || !bytes.Equal(again[0].JSON, d.JSON) {
				var got [][]byte
				for _, a := range again {
					got = append(got, a.JSON)
				}
				t.Fatalf("Convert(%q) document %d: Convert(%s) = %q, want it unchanged", data, d.Index, d.JSON, got)
			}
		}
		compareWithYAMLv3(t, data, docs)
	})
}

// maxLines bounds the lines YAML sees in data: it breaks lines at LF, CR,
// NEL, LS and PS (CR LF counts twice here, which only loosens the bound).
func maxLines(data []byte) int {
	n := 1
	for _, br := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
		n += bytes.Count(data, []byte(br))
	}
	return n
}

// paths lists up to limit field paths of a JSON document, in the syntax of
// field.Path, brackets for keys that hold "." or "[".
func paths(doc []byte, limit int) []string {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return nil
	}
	out := []string{""}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		if len(out) >= limit {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for k, c := range v {
				p := prefix + "." + k
				if strings.ContainsAny(k, ".[") || k == "" {
					p = prefix + "[" + k + "]"
				}
				out = append(out, strings.TrimPrefix(p, "."))
				walk(p, c)
			}
		case []any:
			for i, c := range v {
				p := prefix + "[" + strconv.Itoa(i) + "]"
				out = append(out, strings.TrimPrefix(p, "."))
				walk(p, c)
			}
		}
	}
	walk("", v)
	return out
}

// longestKey returns the length in runes of the longest object key of a JSON
// document, as decoded.
func longestKey(doc []byte) int {
	dec := json.NewDecoder(bytes.NewReader(doc))
	type frame struct{ object, wantKey bool }
	var stack []frame
	longest := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return longest
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].object {
			if stack[top].wantKey {
				if s, ok := tok.(string); ok {
					longest = max(longest, utf8.RuneCountInString(s))
					stack[top].wantKey = false
					continue
				}
			} else {
				stack[top].wantKey = true
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
	}
}

// compareWithYAMLv3 decodes data with yaml.v3 into interface values and,
// where that succeeds, checks that each document means the same as the JSON
// Convert wrote, allowing for the differences the package documents.
func compareWithYAMLv3(t *testing.T, data []byte, docs []Document) {
	t.Helper()
	theirs, ok := decodeYAMLv3(data)
	if !ok {
		return
	}
	if len(theirs) != len(docs) {
		t.Fatalf("Convert(%q) = %d documents, yaml.v3 decodes %d", data, len(docs), len(theirs))
	}
	for i, d := range docs {
		dec := json.NewDecoder(bytes.NewReader(d.JSON))
		dec.UseNumber()
		var mine any
		if err := dec.Decode(&mine); err != nil {
			t.Fatalf("decoding document %d: %v", i, err)
		}
		if !sameValue(mine, theirs[i]) {
			t.Fatalf("Convert(%q) document %d = %s, yaml.v3 decodes %#v", data, i, d.JSON, theirs[i])
		}
	}
}

// decodeYAMLv3 decodes every document of data into an interface value. It
// reports false when yaml.v3 fails or panics.
func decodeYAMLv3(data []byte) (docs []any, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return docs, true
		}
		if err != nil {
			return nil, false
		}
		docs = append(docs, v)
	}
}

// sameValue compares a value decoded from Convert's JSON (numbers as
// json.Number) with the one yaml.v3 decoded. Keys that yaml.v3 keeps as
// non-strings and timestamps, which the package converts differently on
// purpose, are accepted as they are.
func sameValue(mine, theirs any) bool {
	switch th := theirs.(type) {
	case nil:
		return mine == nil
	case bool, string:
		if n, ok := mine.(json.Number); ok {
			// An integer beyond what strconv parses, which yaml.v3 keeps as
			// a string.
			digits, big := bigInt(th.(string))
			return big && digits == string(n)
		}
		return mine == theirs
	case int:
		n, ok := mine.(json.Number)
		return ok && string(n) == strconv.Itoa(th)
	case int64:
		n, ok := mine.(json.Number)
		return ok && string(n) == strconv.FormatInt(th, 10)
	case uint64:
		n, ok := mine.(json.Number)
		return ok && string(n) == strconv.FormatUint(th, 10)
	case float64:
		n, ok := mine.(json.Number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(string(n), 64)
		return err == nil && f == th
	case time.Time:
		_, ok := mine.(string)
		return ok
	case []any:
		m, ok := mine.([]any)
		if !ok || len(m) != len(th) {
			return false
		}
		for i := range th {
			if !sameValue(m[i], th[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		m, ok := mine.(map[string]any)
		if !ok || len(m) != len(th) {
			return false
		}
		for k, v := range th {
			if mv, ok := m[k]; !ok || !sameValue(mv, v) {
				return false
			}
		}
		return true
	case map[any]any:
		_, ok := mine.(map[string]any)
		return ok
	}
	return false
}
