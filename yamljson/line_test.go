package yamljson_test

import (
	"os"
	"testing"

	"github.com/rlpkit/rlpkit/yamljson"
)

func TestLine(t *testing.T) {
	data, err := os.ReadFile("testdata/policies.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := yamljson.Convert(data)
	if err != nil {
		t.Fatalf("Convert(testdata/policies.yaml) error: %v", err)
	}
	if len(docs) != 2 {
		t.Fatalf("Convert(testdata/policies.yaml) = %d documents, want 2", len(docs))
	}
	tests := []struct {
		name string
		doc  int
		path string
		want int
	}{
		{"document", 0, "", 2},
		{"top-level key", 0, "apiVersion", 3},
		{"mapping key", 0, "metadata", 5},
		{"nested key", 0, "metadata.name", 6},
		{"bracketed key with dots and slash", 0, "metadata.labels[app.kubernetes.io/name]", 9},
		{"dotted key", 0, "metadata.labels.tier", 10},
		{"bracketed plain key", 0, "metadata.labels[tier]", 10},
		{"leading dot", 0, ".spec.targetRef", 12},
		{"deep key", 0, "spec.targetRef.kind", 14},
		{"list", 0, "spec.default.rateLimits", 17},
		{"first list item", 0, "spec.default.rateLimits[0]", 18},
		{"key in first item", 0, "spec.default.rateLimits[0].seconds", 22},
		{"item of nested list", 0, "spec.default.rateLimits[0].variables[0]", 20},
		{"second list item", 0, "spec.default.rateLimits[1]", 23},
		{"flow list item", 0, "spec.default.rateLimits[1].variables[0]", 23},
		{"key in second item", 0, "spec.default.rateLimits[1].seconds", 25},
		{"bracketed key after index", 0, "spec.default.rateLimits[0][max_value]", 21},
		{"index past the end falls back to the list", 0, "spec.default.rateLimits[2].seconds", 17},
		{"missing key falls back to the item", 0, "spec.default.rateLimits[1].nope", 23},
		{"missing key falls back to its parent", 0, "spec.nope.deeper", 11},
		{"missing top-level key falls back to the document", 0, "nope", 2},
		{"dot into a list falls back", 0, "spec.default.rateLimits.seconds", 17},
		{"negative index falls back", 0, "spec.default.rateLimits[-1]", 17},
		{"signed index falls back", 0, "spec.default.rateLimits[+1]", 17},
		{"word as index falls back", 0, "spec.default.rateLimits[x]", 17},
		{"below a scalar falls back", 0, "metadata.labels[app.kubernetes.io/name].x", 9},
		{"empty segment falls back", 0, "spec..default", 11},
		{"unclosed bracket falls back", 0, "spec.default[rateLimits", 16},
		{"other document", 1, "", 26},
		{"flow mapping key", 1, "metadata.name", 30},
		{"anchored item is where its anchor is", 1, "spec.default.rateLimits[0]", 38},
		{"key of anchored item", 1, "spec.default.rateLimits[0].seconds", 42},
		{"alias item is where the alias is", 1, "spec.override.rateLimits[0]", 45},
		{"under an alias is where the anchor is", 1, "spec.override.rateLimits[0].seconds", 42},
		{"merging item", 1, "spec.override.rateLimits[1]", 46},
		{"explicit key beside a merge", 1, "spec.override.rateLimits[1].max_value", 47},
		{"merged key is where it is written", 1, "spec.override.rateLimits[1].seconds", 42},
		{"integer key in brackets", 1, "spec.override.codes[404]", 49},
		{"integer key after a dot", 1, "spec.override.codes.404", 49},
		{"bracketed key holding a bracket", 1, "spec.override.codes[weird]key]", 50},
		{"bracketed key prefix does not match", 1, "spec.override.codes[weird]", 48},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := docs[tc.doc].Line(tc.path); got != tc.want {
				t.Errorf("docs[%d].Line(%q) = %d, want %d", tc.doc, tc.path, got, tc.want)
			}
		})
	}

	// The merged item's JSON, to show what the lines above point into.
	const want = `{"apiVersion":"apim.kuadrant.io/v1alpha1","kind":"RateLimitPolicy",` +
		`"metadata":{"name":"gateway-wide","namespace":"infra"},` +
		`"spec":{"targetRef":{"group":"gateway.networking.k8s.io","kind":"Gateway","name":"prod"},` +
		`"default":{"rateLimits":[{"conditions":[],"variables":[],"max_value":100,"seconds":60}]},` +
		`"override":{"rateLimits":[{"conditions":[],"variables":[],"max_value":100,"seconds":60},` +
		`{"conditions":[],"variables":[],"seconds":60,"max_value":10}],` +
		`"codes":{"404":"notFound","weird]key":"x"}}}}`
	if got := string(docs[1].JSON); got != want {
		t.Errorf("docs[1].JSON = %s, want %s", got, want)
	}
}

func TestLineRootSequence(t *testing.T) {
	docs, err := yamljson.Convert([]byte("- a\n- b: 1\n  c:\n    - d\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want int
	}{
		{"", 1},
		{"[0]", 1},
		{"[1]", 2},
		{"[1].b", 2},
		{"[1].c[0]", 4},
		{"[2]", 1},
		{"b", 1},
	}
	for _, tc := range tests {
		if got := docs[0].Line(tc.path); got != tc.want {
			t.Errorf("Line(%q) = %d, want %d", tc.path, got, tc.want)
		}
	}
}

func TestLineZeroDocument(t *testing.T) {
	var d yamljson.Document
	for _, path := range []string{"", "a", "[0]", "a.b[c]"} {
		if got := d.Line(path); got != 0 {
			t.Errorf("Document{}.Line(%q) = %d, want 0", path, got)
		}
	}
	if d.Empty() {
		t.Errorf("Document{}.Empty() = true, want false")
	}
}

func TestLineEmptyDocument(t *testing.T) {
	docs, err := yamljson.Convert([]byte("a: 1\n---\n# nothing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := docs[1].Line("a"); got != 2 {
		t.Errorf("docs[1].Line(%q) = %d, want 2", "a", got)
	}
}
