package policy

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the decoder and validator: nothing panics, every
// problem is an *Error with a source, and every object kept has a name and a source.
func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"valid", "invalid"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.yaml"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"List","items":[]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := Decode("fuzz.yaml", data)
		if err != nil {
			var list Errors
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty Errors", err, err)
			}
			for _, e := range list {
				if e.File != "fuzz.yaml" || e.Detail == "" {
					t.Fatalf("problem without source or detail: %#v", e)
				}
			}
		}
		for _, p := range set.Policies {
			if p.Name == "" || p.Namespace == "" {
				t.Fatalf("policy kept without name or namespace: %+v", p.ObjectMeta)
			}
			if _, ok := set.Source(PolicyKey(p)); !ok {
				t.Fatalf("policy %s has no source", p.Name)
			}
			_ = ValidateRateLimitPolicy(p.DeepCopy())
		}
		for _, p := range set.PoliciesV1 {
			if p.Name == "" || p.Namespace == "" {
				t.Fatalf("kuadrant.io/v1 policy kept without name or namespace: %+v", p.ObjectMeta)
			}
			if _, ok := set.Source(PolicyV1Key(p)); !ok {
				t.Fatalf("kuadrant.io/v1 policy %s has no source", p.Name)
			}
		}
	})
}
