package controller

import (
	"slices"
	"testing"

	policyapis "github.com/rlpkit/rlpkit/policyapi/apis"
)

// TestPolicyKinds checks the registrations: one per API of AllAPIs, in its order, each
// compiled by an API package policyapi/apis lists, each found again from its API's
// statuses, its objects and its scheme.
func TestPolicyKinds(t *testing.T) {
	var names []string
	for _, a := range policyapis.All(policyapis.Options{}) {
		names = append(names, a.Name())
	}
	scheme := testScheme(t)
	if len(policyKinds) != len(AllAPIs) {
		t.Fatalf("%d registrations for %d APIs", len(policyKinds), len(AllAPIs))
	}
	for i := range policyKinds {
		k := &policyKinds[i]
		if k.api != AllAPIs[i] || k.api.kind() != k {
			t.Errorf("registration %d is for %s, want %s", i, k.api, AllAPIs[i])
		}
		if !slices.Contains(names, k.compiledBy) {
			t.Errorf("%s: compiled by %q, which policyapi/apis does not list (%q)", k.api, k.compiledBy, names)
		}
		if got := compiledKind(k.compiledBy, k.statusKind); got != k {
			t.Errorf("compiledKind(%q, %q) = %v, want %s's", k.compiledBy, k.statusKind, got, k.api)
		}
		obj := k.newObject()
		if got := kindOf(obj); got != k {
			t.Errorf("kindOf(%T) = %v, want %s's", obj, got, k.api)
		}
		if gvks, _, err := scheme.ObjectKinds(obj); err != nil || !slices.Contains(gvks, k.gvk) {
			t.Errorf("NewScheme: %T is %v (%v), want %s", obj, gvks, err, k.gvk)
		}
		if next, ok := k.patched(obj, nil); !ok || next == obj {
			t.Errorf("%s: patched(%T) = %v, %v; want a copy", k.api, obj, next, ok)
		}
	}
}
