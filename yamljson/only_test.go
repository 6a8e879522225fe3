package yamljson

import "testing"

func TestOnly(t *testing.T) {
	for _, tc := range []struct {
		src        string
		doc        bool
		second     int
		firstStart int
	}{
		{"", false, 0, 0},
		{"---\n---\n", false, 0, 0},
		{"a: 1\n", true, 0, 1},
		{"---\n# nothing\n---\na: 1\n", true, 0, 3}, // a document starts at its "---"
		{"a: 1\n---\nb: 2\n", true, 2, 1},
	} {
		docs, err := Convert([]byte(tc.src))
		if err != nil {
			t.Fatalf("Convert(%q): %v", tc.src, err)
		}
		doc, second := Only(docs)
		if (doc != nil) != tc.doc || second != tc.second || doc != nil && doc.StartLine != tc.firstStart {
			t.Errorf("Only(%q) = %v, %d; want a document: %v (line %d), second %d", tc.src, doc, second, tc.doc, tc.firstStart, tc.second)
		}
	}
}
