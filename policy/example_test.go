package policy_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/rlpkit/rlpkit/policy"
)

// Reading a directory of manifests, as `rlpkit validate` does: the
// repository's examples/toystore holds a Gateway, an HTTPRoute and two
// RateLimitPolicies, and a PolicyTest, which Read leaves to package
// policytest without a notice.
func ExampleRead() {
	set, err := policy.Read([]string{"../examples/toystore"}, nil)
	if err != nil {
		log.Fatal(err) // policy.Errors: every problem of every file, one a line
	}
	for _, p := range set.Policies {
		src, _ := set.Source(policy.PolicyKey(p))
		fmt.Printf("%s: %s/%s targets %s %s\n", src, p.Namespace, p.Name, p.Spec.TargetRef.Kind, p.Spec.TargetRef.Name)
	}
	fmt.Println(len(set.Gateways), "Gateway,", len(set.HTTPRoutes), "HTTPRoute")
	for _, n := range set.Notices {
		fmt.Println(n)
	}
	// Output:
	// ../examples/toystore/policies.yaml:6: default/toystore targets HTTPRoute toystore
	// ../examples/toystore/policies.yaml:33: gateway-system/mygateway targets Gateway mygateway
	// 1 Gateway, 1 HTTPRoute
}

// Validation reports every problem of a document at once, each with its
// file, line, object and field path; errors.As finds them.
func ExampleDecode_errors() {
	_, err := policy.Decode("toystore.yaml", []byte(`apiVersion: apim.kuadrant.io/v1alpha1
kind: RateLimitPolicy
metadata: {name: toystore, namespace: default}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoutes, name: toystore}
  default:
    rateLimits:
    - {max_value: 10, seconds: 0}
    - {max_value: "10", seconds: 60}
`))
	fmt.Println(err)
	var errs policy.Errors
	if errors.As(err, &errs) {
		fmt.Println(len(errs), "problems; the first is in", errs[0].Object, "at", errs[0].Field)
	}
	// Output:
	// toystore.yaml:5: RateLimitPolicy default/toystore: spec.targetRef.kind: Unsupported value: "HTTPRoutes": supported values: "Gateway", "HTTPRoute"
	// toystore.yaml:8: RateLimitPolicy default/toystore: spec.default.rateLimits[0].seconds: Invalid value: 0: must be greater than 0
	// toystore.yaml:9: RateLimitPolicy default/toystore: spec.default.rateLimits[1].max_value: Invalid value: "10": must be an integer, not a string: write 10 without quotes
	// 3 problems; the first is in RateLimitPolicy default/toystore at spec.targetRef.kind
}
