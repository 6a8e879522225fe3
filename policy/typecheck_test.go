package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// policyWithLimits is a RateLimitPolicy whose spec.default.rateLimits are the given YAML
// list items, each starting on its own line; the first item is on line 8.
func policyWithLimits(items ...string) string {
	return rlpHead + `spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  default:
    rateLimits:
` + strings.Join(items, "")
}

// TestDecodeValueTypes: a value of the wrong type is reported at its line with its full
// path and a plain message, it does not hide the other problems of the document, and its
// object is kept with the problem.
func TestDecodeValueTypes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{{
		name: "duration where seconds go, with other problems around it",
		doc: policyWithLimits(
			"    - {max_value: 1, seconds: 0}\n",
			"    - {max_value: 2, seconds: 60, burst: 3}\n",
			"    - {max_value: 3, seconds: 1m}\n"),
		want: []string{
			"p.yaml:8: RateLimitPolicy ns/p: spec.default.rateLimits[0].seconds: Invalid value: 0: must be greater than 0",
			"p.yaml:9: RateLimitPolicy ns/p: spec.default.rateLimits[1].burst: unknown field",
			`p.yaml:10: RateLimitPolicy ns/p: spec.default.rateLimits[2].seconds: Invalid value: "1m": must be an integer number of seconds: write 60 for 1m`,
		},
	}, {
		name: "limits left without seconds are not duplicates of each other",
		doc: policyWithLimits(
			"    - {max_value: 1, seconds: 1m}\n",
			"    - {max_value: 2, seconds: 2m}\n"),
		want: []string{
			`p.yaml:8: RateLimitPolicy ns/p: spec.default.rateLimits[0].seconds: Invalid value: "1m": must be an integer number of seconds: write 60 for 1m`,
			`p.yaml:9: RateLimitPolicy ns/p: spec.default.rateLimits[1].seconds: Invalid value: "2m": must be an integer number of seconds: write 120 for 2m`,
		},
	}, {
		name: "quoted number",
		doc:  policyWithLimits("    - max_value: \"10\"\n      seconds: 60\n"),
		want: []string{`p.yaml:8: RateLimitPolicy ns/p: spec.default.rateLimits[0].max_value: Invalid value: "10": must be an integer, not a string: write 10 without quotes`},
	}, {
		name: "25-digit number",
		doc:  policyWithLimits("    - max_value: 1234567890123456789012345\n      seconds: 60\n"),
		want: []string{"p.yaml:8: RateLimitPolicy ns/p: spec.default.rateLimits[0].max_value: Invalid value: 1234567890123456789012345: out of range: must be at most 9223372036854775807"},
	}, {
		name: "fraction",
		doc:  policyWithLimits("    - max_value: 10\n      seconds: 1.5\n"),
		want: []string{"p.yaml:9: RateLimitPolicy ns/p: spec.default.rateLimits[0].seconds: Invalid value: 1.5: must be an integer"},
	}, {
		name: "integers written as floats are integers",
		doc:  policyWithLimits("    - max_value: 1e3\n      seconds: 60.0\n"),
	}, {
		name: "object where a list goes",
		doc:  policyWithLimits("    - max_value: 10\n      seconds: 60\n      conditions: {method: GET}\n"),
		want: []string{"p.yaml:10: RateLimitPolicy ns/p: spec.default.rateLimits[0].conditions: Invalid value: object: must be a list"},
	}, {
		name: "number in a list of strings",
		doc:  policyWithLimits("    - max_value: 10\n      seconds: 60\n      variables:\n      - user\n      - 7\n"),
		want: []string{"p.yaml:12: RateLimitPolicy ns/p: spec.default.rateLimits[0].variables[1]: Invalid value: 7: must be a string"},
	}, {
		name: "missing max_value",
		doc: policyWithLimits(
			"    - {max_value: 1, seconds: 10}\n",
			"    - {max_value: 2, seconds: 20}\n",
			"    - {seconds: 30}\n"),
		want: []string{"p.yaml:10: RateLimitPolicy ns/p: spec.default.rateLimits[2].max_value: Required value: how many requests the limit admits per seconds; 0 admits none"},
	}, {
		name: "null max_value and missing seconds in override",
		doc: rlpHead + `spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  override:
    rateLimits:
    - max_value: ~
`,
		want: []string{
			"p.yaml:8: RateLimitPolicy ns/p: spec.override.rateLimits[0].max_value: Required value: how many requests the limit admits per seconds; 0 admits none",
			"p.yaml:8: RateLimitPolicy ns/p: spec.override.rateLimits[0].seconds: Required value: the length of the limit's window, in seconds",
		},
	}, {
		name: "max_value 0 written is valid",
		doc:  policyWithLimits("    - {max_value: 0, seconds: 10}\n"),
	}, {
		name: "gateway action deep inside",
		doc: rlpHead + `spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
  default:
    gatewayActions:
    - rules:
      - paths: /admin
        methods: [GET]
      configurations:
      - actions:
        - generic_key: {descriptor_key: k, descriptor_value: v}
        - request_headers: [x]
    rateLimits:
    - {max_value: 1, seconds: "60"}
`,
		want: []string{
			`p.yaml:9: RateLimitPolicy ns/p: spec.default.gatewayActions[0].rules[0].paths: Invalid value: "/admin": must be a list`,
			`p.yaml:14: RateLimitPolicy ns/p: spec.default.gatewayActions[0].configurations[0].actions[1].request_headers: Invalid value: list: must be an object`,
			`p.yaml:16: RateLimitPolicy ns/p: spec.default.rateLimits[0].seconds: Invalid value: "60": must be an integer, not a string: write 60 without quotes`,
		},
	}, {
		name: "metadata and status",
		doc: `apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata:
  name: p
  namespace: ns
  labels: [a, b]
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
status:
  conditions:
  - {type: Accepted, status: "True", reason: Accepted, message: ok, lastTransitionTime: yesterday}
`,
		want: []string{
			"p.yaml:6: RateLimitPolicy ns/p: metadata.labels: Invalid value: list: must be an object",
			`p.yaml:11: RateLimitPolicy ns/p: status.conditions[0].lastTransitionTime: Invalid value: "yesterday": parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
		},
	}, {
		name: "name of the wrong type",
		doc: `apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: 7, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}
`,
		want: []string{"p.yaml:3: RateLimitPolicy: metadata.name: Invalid value: 7: must be a string"},
	}, {
		name: "gateway listener",
		doc: `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: c
  listeners:
  - {name: a, port: 80, protocol: HTTP}
  - name: b
    port: 99999999999
    protocol: HTTP
    hostname: true
`,
		want: []string{
			"p.yaml:9: Gateway ns/gw: spec.listeners[1].port: Invalid value: 99999999999: out of range: must be at most 2147483647",
			"p.yaml:11: Gateway ns/gw: spec.listeners[1].hostname: Invalid value: true: must be a string",
		},
	}, {
		name: "route rule",
		doc: `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches:
    - path: {type: PathPrefix, value: 5}
    - headers: {name: x}
`,
		want: []string{
			"p.yaml:8: HTTPRoute ns/r: spec.rules[0].matches[0].path.value: Invalid value: 5: must be a string",
			"p.yaml:9: HTTPRoute ns/r: spec.rules[0].matches[1].headers: Invalid value: object: must be a list",
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("p.yaml", []byte(tc.doc))
			var got []string
			if err != nil {
				got = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Decode(p.yaml) errors (-want +got):\n%s\ngot:\n%s\ninput:\n%s", diff, strings.Join(got, "\n"), tc.doc)
			}
			// The object is kept, with its problems, unless its name is unusable.
			if len(tc.want) > 0 && !strings.Contains(tc.name, "name") {
				if n := len(set.Policies) + len(set.Gateways) + len(set.HTTPRoutes); n != 1 {
					t.Errorf("Decode(p.yaml) kept %d objects, want 1", n)
				}
				if len(set.Policies) == 1 {
					if probs := set.Problems(PolicyKey(set.Policies[0])); len(probs) != len(tc.want) {
						t.Errorf("Problems(%s) = %v, want %d problems", set.Policies[0].Name, probs, len(tc.want))
					}
				}
			}
		})
	}
}

// TestDecodeIntegerForms: integers written as floats decode to their value.
func TestDecodeIntegerForms(t *testing.T) {
	set, err := Decode("p.yaml", []byte(policyWithLimits("    - {max_value: 1e3, seconds: 60.0}\n")))
	if err != nil {
		t.Fatal(err)
	}
	got := set.Policies[0].Spec.Default.RateLimits[0]
	if got.MaxValue != 1000 || got.Seconds != 60 {
		t.Errorf("Decode(max_value: 1e3, seconds: 60.0) = %d, %d, want 1000, 60", got.MaxValue, got.Seconds)
	}
}
