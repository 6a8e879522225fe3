package policytest

import (
	"strings"
	"testing"
)

// TestStepHeadersValidated refuses a step header whose name is not a header name.
func TestStepHeadersValidated(t *testing.T) {
	doc := `apiVersion: rlpkit.dev/v1alpha1
kind: PolicyTest
metadata: {name: t}
spec:
  inputs: [x.yaml]
  gateway: a/b
  cases:
  - name: c
    request: {url: "http://a/"}
    steps:
    - {want: OK, headers: {"x tenant": a}}
`
	_, err := Decode("t.yaml", []byte(doc))
	if err == nil || !strings.Contains(err.Error(), `spec.cases[0].steps[0].headers: Invalid value: "x tenant"`) {
		t.Errorf("error %v, want one at spec.cases[0].steps[0].headers", err)
	}
}

// TestStepInput replaces the case's headers of the same name, in any case, and keeps the
// others.
func TestStepInput(t *testing.T) {
	c := &Case{Request: Request{URL: "http://a.example/x", Headers: map[string]string{"X-Tenant-Id": "acme", "X-Model": "m"}}}
	in := c.stepInput(&Step{Headers: map[string]string{"x-tenant-id": "globex"}})
	if got := in.Headers["x-tenant-id"]; len(got) != 1 || got[0] != "globex" {
		t.Errorf("x-tenant-id = %q, want [globex]", got)
	}
	if got := in.Headers["x-model"]; len(got) != 1 || got[0] != "m" {
		t.Errorf("x-model = %q, want [m]", got)
	}
	if c.Request.Headers["X-Tenant-Id"] != "acme" {
		t.Errorf("the case's headers changed: %v", c.Request.Headers)
	}
}
