package jsonerr

import (
	"encoding/json"
	"testing"

	sigsjson "sigs.k8s.io/json"
)

type doc struct {
	Spec spec `json:"spec"`
}

type spec struct {
	Max int `json:"max"`
}

func TestDescribe(t *testing.T) {
	var d doc
	_, err := sigsjson.UnmarshalStrict([]byte(`{"spec": {"max": "ten"}}`), &d)
	if path, detail := Describe(err); path != "spec.max" || detail != "Invalid value: string: must be int" {
		t.Errorf("Describe(%v) = %q, %q", err, path, detail)
	}
	err = json.Unmarshal([]byte(`{`), &d)
	if path, detail := Describe(err); path != "" || detail != "cannot decode: unexpected end of JSON input" {
		t.Errorf("Describe(%v) = %q, %q", err, path, detail)
	}
}

func TestStrict(t *testing.T) {
	var d doc
	strict, err := sigsjson.UnmarshalStrict([]byte(`{"spec": {"max": 1, "max": 2, "min": 0}}`), &d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"spec.max": "duplicate field", "spec.min": "unknown field"}
	if len(strict) != len(want) {
		t.Fatalf("UnmarshalStrict: %d problems (%v), want %d", len(strict), strict, len(want))
	}
	for _, e := range strict {
		path, detail := Strict(e)
		if want[path] != detail {
			t.Errorf("Strict(%v) = %q, %q; want %q for %s", e, path, detail, want[path], path)
		}
	}
}
