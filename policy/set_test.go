package policy

import "testing"

func TestFieldSource(t *testing.T) {
	set, err := Decode("in.yaml", []byte(`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: default}
spec:
  parentRefs:
  - name: gw
    namespace: infra
  - name: other
  hostnames: ["a.example.com"]
---
apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: p, namespace: default}
spec:
  targetRef:
    group: gateway.networking.k8s.io
    kind: HTTPRoute
    name: r
`))
	if err != nil {
		t.Fatal(err)
	}
	route := ObjectKey{Kind: KindHTTPRoute, Namespace: "default", Name: "r"}
	pol := ObjectKey{Kind: KindRateLimitPolicy, Namespace: "default", Name: "p"}
	tests := []struct {
		key      ObjectKey
		path     string
		wantLine int
		wantOK   bool
	}{
		{route, "spec.hostnames", 9, true},
		{route, "spec.parentRefs[0]", 6, true},
		{route, "spec.parentRefs[1].name", 8, true},
		{route, "spec.parentRefs[1].sectionName", 8, true}, // not written: its parent's line
		{pol, "spec.targetRef", 15, true},
		{pol, "spec.targetRef.name", 18, true},
		{pol, "", 10, true}, // the object: where its document starts
		{ObjectKey{Kind: KindGateway, Namespace: "default", Name: "r"}, "spec", 0, false},
	}
	for _, tc := range tests {
		src, ok := set.FieldSource(tc.key, tc.path)
		if src.Line != tc.wantLine || ok != tc.wantOK || (ok && src.File != "in.yaml") {
			t.Errorf("FieldSource(%s, %q) = %v, %t, want in.yaml:%d, %t", tc.key, tc.path, src, ok, tc.wantLine, tc.wantOK)
		}
	}
}
