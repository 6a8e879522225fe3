package policytest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRunCase runs cases against testdata/pc.yaml (a descriptor per x-user header) and
// testdata/limits.yaml (2 per 10 seconds per user, unnamed: "limits[0]").
func TestRunCase(t *testing.T) {
	tests := []struct {
		name  string
		cases string
		want  []string
	}{
		{
			name: "at is relative with +, else from the start",
			cases: `
  - name: c
    request: {url: "http://api.example.com/", headers: {X-User: ann}}
    steps:
    - {repeat: 2, want: OK}
    - {at: +9s, want: OVER_LIMIT}
    - {at: 10s, want: OK, remaining: 1, reset: 10s, limit: "limits[0]"}
    - {at: +1s, want: OK, remaining: 0, reset: 9s}
    - {want: OVER_LIMIT}`,
		},
		{
			name: "every kind of failure",
			cases: `
  - name: c
    request: {url: "http://api.example.com/", headers: {X-User: ann}}
    descriptors: [{entries: [{key: user, value: bob}]}]
    steps:
    - {want: OVER_LIMIT, limit: other, remaining: 0, reset: 5s}
    - {want: OK, statuses: [{want: OVER_LIMIT}, {want: OK}]}
    - {want: OK, statuses: [{want: OVER_LIMIT, remaining: 0}]}`,
			want: []string{
				"descriptors differ (-want +got):\n- {user=bob}\n+ {user=ann}",
				`step 1: want OVER_LIMIT got OK; limit "limits[0]" 2/10s remaining 1`,
				`step 1: want limit "other" got limit "limits[0]" 2/10s remaining 1`,
				`step 1: want remaining 0 got limit "limits[0]" 2/10s remaining 1`,
				`step 1: want reset 5s got 10s; limit "limits[0]" 2/10s remaining 1`,
				`step 2: want 2 statuses got 1`,
				`step 3: want OK got OVER_LIMIT; limit "limits[0]" 2/10s remaining 0`,
			},
		},
		{
			name: "no descriptors: the service is not called",
			cases: `
  - name: c
    request: {url: "http://api.example.com/"}
    descriptors: []
    steps:
    - {repeat: 5, want: OVER_LIMIT}`,
			want: []string{"step 1 (request 1 of 5): want OVER_LIMIT got OK; no descriptors: the service is not called"},
		},
		{
			name: "a step's headers: another user on the same limit",
			cases: `
  - name: c
    request: {url: "http://api.example.com/", headers: {X-User: ann}}
    steps:
    - {repeat: 2, want: OK}
    - {want: OK, headers: {x-user: bob}, remaining: 1}
    - {want: OVER_LIMIT, headers: {X-USER: ann}, remaining: 0}
    - {want: OVER_LIMIT, headers: {x-user: bob}}`,
			want: []string{`step 4: want OVER_LIMIT got OK; limit "limits[0]" 2/10s remaining 0`},
		},
		{
			name: "usage on a target that reports nothing",
			cases: `
  - name: c
    request: {url: "http://api.example.com/", headers: {X-User: ann}}
    steps:
    - {want: OK}
    - {want: OK, usage: {tokens: 10}}`,
			want: []string{"steps[1].usage: this target makes no call after the response that reads usage (only kuadrant.io TokenRateLimitPolicies' reports and Envoy Gateway rules with a cost.response do)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.yaml")
			for _, f := range []string{"pc.yaml", "limits.yaml"} {
				data, err := os.ReadFile(filepath.Join("testdata", f))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(filepath.Dir(file), f), data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			doc := "apiVersion: rlpkit.dev/v1alpha1\nkind: PolicyTest\nmetadata: {name: t}\nspec:\n  pluginConfig: pc.yaml\n  limits: limits.yaml\n  cases:" + tc.cases + "\n"
			if err := os.WriteFile(file, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := RunFile(file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Cases) != 1 {
				t.Fatalf("RunFile() = %d cases, want 1", len(res.Cases))
			}
			if diff := cmp.Diff(tc.want, res.Cases[0].Failures); diff != "" {
				t.Errorf("RunFile() failures (-want +got):\n%s\nexplain:\n%s", diff, res.Cases[0].Explain)
			}
			if !strings.HasPrefix(res.Names[0], "t.yaml/c") {
				t.Errorf("RunFile() name = %q, want t.yaml/c", res.Names[0])
			}
		})
	}
}
