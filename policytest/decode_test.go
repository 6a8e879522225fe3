package policytest

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  string
	}{
		{
			name: "unknown field, bad want, bad at, bad url",
			input: `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  pluginConfig: pc.yaml
  limits: limits.yaml
  cases:
  - name: a
    request:
      url: /no-host
      mehtod: GET
    steps:
    - at: soon
      want: ok
`,
			want: `t.yaml:10: PolicyTest t: spec.cases[0].request.url: Invalid value: "/no-host": want an absolute URL such as http://api.example.com/path
t.yaml:11: PolicyTest t: spec.cases[0].request.mehtod: unknown field
t.yaml:13: PolicyTest t: spec.cases[0].steps[0].at: Invalid value: "soon": want "+10s" (after the previous step) or "90s" (after the start)
t.yaml:14: PolicyTest t: spec.cases[0].steps[0].want: Unsupported value: "ok": want OK or OVER_LIMIT`,
		},
		{
			name: "both kinds of inputs, duplicate case, no expectations",
			input: `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  inputs: [.]
  gateway: gw
  pluginConfig: pc.yaml
  cases:
  - name: a
    request: {url: "http://a.example.com/"}
    descriptors: []
  - name: a
    request: {url: "http://a.example.com/"}
`,
			want: `t.yaml:4: PolicyTest t: spec: Invalid value: name one of: inputs and gateway; pluginConfig and limits; envoy
t.yaml:12: PolicyTest t: spec.cases[1].name: Duplicate value: "a" is also spec.cases[0]
t.yaml:12: PolicyTest t: spec.cases[1]: Required value: expect descriptors, steps, or both`,
		},
		{
			name: "usage: both, neither, not JSON, unknown field",
			input: `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  pluginConfig: pc.yaml
  limits: limits.yaml
  cases:
  - name: a
    request: {url: "http://a.example.com/"}
    steps:
    - {want: OK, usage: {tokens: 3, body: "{}"}}
    - {want: OK, usage: {}}
    - {want: OK, usage: {body: "{"}}
    - {want: OK, usage: {token: 3}}
`,
			want: `t.yaml:11: PolicyTest t: spec.cases[0].steps[0].usage: Invalid value: want exactly one of tokens and body
t.yaml:12: PolicyTest t: spec.cases[0].steps[1].usage: Invalid value: want exactly one of tokens and body
t.yaml:13: PolicyTest t: spec.cases[0].steps[2].usage.body: Invalid value: not JSON
t.yaml:14: PolicyTest t: spec.cases[0].steps[3].usage.token: unknown field
t.yaml:14: PolicyTest t: spec.cases[0].steps[3].usage: Invalid value: want exactly one of tokens and body`,
		},
		{
			name: "wrong type",
			input: `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  inputs: [.]
  gateway: ns/gw
  cases:
  - name: a
    request: {url: "http://a.example.com/"}
    steps:
    - {repeat: many, want: OK}
`,
			// encoding/json's type errors carry no list indexes: the line is the list's.
			want: `t.yaml:7: PolicyTest t: spec.cases.steps.repeat: Invalid value: string: must be int`,
		},
		{
			name: "wrong apiVersion, no name, no cases",
			input: `apiVersion: rlpkit.dev/v1
kind: PolicyTest
spec: {inputs: [.], gateway: ns/gw}
`,
			want: `t.yaml:1: apiVersion: Unsupported value: "rlpkit.dev/v1": a PolicyTest is rlpkit.dev/v1alpha1
t.yaml:1: metadata.name: Required value
t.yaml:3: spec.cases: Required value: at least one case`,
		},
		{
			name:  "YAML syntax",
			input: "kind: PolicyTest\n  bad: [\n",
			want:  `t.yaml:2: YAML: mapping values are not allowed in this context (is this line indented deeper than it should be, or does a value hold ": " and need quotes?)`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("t.yaml", []byte(tc.input))
			if err == nil {
				t.Fatalf("Decode() = nil error, want\n%s", tc.want)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("Decode() errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeSkipsOtherKinds: a file of Gateways and policies holds no PolicyTest and no
// problem.
func TestDecodeSkipsOtherKinds(t *testing.T) {
	tests, err := Decode("in.yaml", []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: x}\n---\n# only a comment\n"))
	if err != nil || len(tests) != 0 {
		t.Errorf("Decode() = %d tests, %v; want none, nil", len(tests), err)
	}
}

// TestDecodeLimitOverride reads descriptors with a limit override as -update writes them
// (the unit by name).
func TestDecodeLimitOverride(t *testing.T) {
	input := `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  inputs: [.]
  gateway: ns/gw
  cases:
  - name: a
    request: {url: "http://a.example.com/"}
    descriptors:
    - entries: [{key: k, value: v}]
      limit: {requests_per_unit: 3, unit: MINUTE}
`
	tests, err := Decode("t.yaml", []byte(input))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	d := (*tests[0].Spec.Cases[0].Descriptors)[0]
	if d.Limit == nil || d.Limit.RequestsPerUnit != 3 || d.Limit.Unit.String() != "MINUTE" {
		t.Errorf("limit = %+v, want 3 per MINUTE", d.Limit)
	}
}
