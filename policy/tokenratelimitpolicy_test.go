package policy

import (
	"strings"
	"testing"
)

// TestDecodeTokenRateLimitPolicy: a kuadrant.io/v1alpha1 TokenRateLimitPolicy is read into
// Set.TokenPolicies (no longer skipped), its CRD problems are reported at their lines,
// and another apiVersion of the kind is reported, not skipped.
func TestDecodeTokenRateLimitPolicy(t *testing.T) {
	const valid = `apiVersion: kuadrant.io/v1alpha1
kind: TokenRateLimitPolicy
metadata: {name: llm, namespace: ai}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: model}
  limits:
    free: {rates: [{limit: 1000, window: 1m}], counters: [{expression: auth.identity.userid}]}
`
	set, err := Decode("trlp.yaml", []byte(valid))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if len(set.TokenPolicies) != 1 || set.TokenPolicies[0].Spec.Limits["free"].Rates[0].Limit != 1000 || len(set.Notices) != 0 {
		t.Fatalf("Decode = %d TokenPolicies, notices %v; want the policy read, no notice", len(set.TokenPolicies), set.Notices)
	}
	if _, ok := set.Source(TokenPolicyKey(set.TokenPolicies[0])); !ok {
		t.Errorf("no Source for %v", TokenPolicyKey(set.TokenPolicies[0]))
	}

	bad := strings.Replace(valid, "kind: HTTPRoute", "kind: GRPCRoute", 1) + "---\napiVersion: kuadrant.io/v1beta1\nkind: TokenRateLimitPolicy\nmetadata: {name: old}\n"
	_, err = Decode("trlp.yaml", []byte(bad))
	for _, want := range []string{
		`trlp.yaml:5: TokenRateLimitPolicy ai/llm: spec.targetRef.kind: Invalid value: "GRPCRoute": Invalid targetRef.kind. The only supported values are 'HTTPRoute' and 'Gateway'`,
		`trlp.yaml:9: apiVersion: Unsupported value: "kuadrant.io/v1beta1": TokenRateLimitPolicy is read as kuadrant.io/v1alpha1`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(bad) = %v, want an error holding %q", err, want)
		}
	}
}
