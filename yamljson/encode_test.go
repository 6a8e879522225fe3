package yamljson

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendString(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", `""`},
		{"plain", "abc", `"abc"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"short escapes", "\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"controls", "\x00\x1f", `"\u0000\u001f"`},
		{"html kept", "<&>", `"<&>"`},
		{"DEL and C1", "\x7f\u0080\u0085\u009f", `"\u007f\u0080\u0085\u009f"`},
		{"after C1", "\u00a0é", "\"\u00a0é\""},
		{"separators", "\u2028\u2029", `"\u2028\u2029"`},
		{"BOM and non-characters", "\ufeff\ufffe\uffff", `"\ufeff\ufffe\uffff"`},
		{"replacement character", "\ufffd", "\"\ufffd\""},
		{"astral", "😀", `"😀"`},
		{"invalid bytes", "a\xffb\xc3", "\"a\ufffdb\ufffd\""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(appendString(nil, tc.in))
			if got != tc.want {
				t.Errorf("appendString(%q) = %s, want %s", tc.in, got, tc.want)
			}
			if n := stringLen(tc.in); n != int64(len(got)) {
				t.Errorf("stringLen(%q) = %d, want %d", tc.in, n, len(got))
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("json.Unmarshal(%s) error: %v", got, err)
			}
			if want := strings.ToValidUTF8(tc.in, "\ufffd"); utf8.ValidString(tc.in) && back != want {
				t.Errorf("json.Unmarshal(appendString(%q)) = %q, want %q", tc.in, back, want)
			}
		})
	}
}

func TestOutputSizeIsExact(t *testing.T) {
	inputs := []string{
		"a: 1\n",
		"a: &x {k: \"\\u2028\", j: [1, 2.5, null]}\nb: [*x, *x]\nc: {<<: *x, z: \"é\\x7f\"}\n",
		"- \"\\0\"\n- {\"a\\tb\": c}\n- []\n- {}\n",
		"",
		"--- ~\n",
	}
	for _, in := range inputs {
		docs, err := Convert([]byte(in))
		if err != nil {
			t.Fatalf("Convert(%q) error: %v", in, err)
		}
		for _, d := range docs {
			if int64(len(d.JSON)) != d.root.size {
				t.Errorf("Convert(%q) document %d: len(JSON) = %d, measured size %d", in, d.Index, len(d.JSON), d.root.size)
			}
		}
	}
}
