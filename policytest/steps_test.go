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

// TestStepAttributes: a step's auth.* attributes replace the case's of the same name and
// keep the others, without changing the case; a name outside auth.* is refused.
func TestStepAttributes(t *testing.T) {
	c := &Case{Request: Request{URL: "http://a.example/x", Attributes: map[string]any{"auth.identity.userid": "alice", "auth.identity.tier": "gold"}}}
	in := c.stepInput(&Step{Attributes: map[string]any{"auth.identity.userid": "bob"}})
	id, _ := in.Auth["identity"].(map[string]any)
	if id["userid"] != "bob" || id["tier"] != "gold" {
		t.Errorf("auth = %v, want identity.userid bob and identity.tier gold", in.Auth)
	}
	if c.Request.Attributes["auth.identity.userid"] != "alice" {
		t.Errorf("the case's attributes changed: %v", c.Request.Attributes)
	}
	var got []string
	validateStep(&Step{Want: "OK", Attributes: map[string]any{"identity.userid": "bob"}}, "spec.cases[0].steps[0]", func(path, detail string) { got = append(got, path+": "+detail) })
	if len(got) != 1 || !strings.HasPrefix(got[0], `spec.cases[0].steps[0].attributes: Invalid value: "identity.userid"`) {
		t.Errorf("validateStep = %q, want the attribute refused at its path", got)
	}
}
