package kuadrant

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// authPolicies are the AuthPolicies of a set that the operator would enforce: valid, with
// rules, their target among the inputs. A path with one of them attached has an auth
// action, so the operator's check declares auth for the rate-limit predicates of the path.
type authPolicies []*kuadrantv1.AuthPolicy

func newAuthPolicies(set *policy.Set, t targets) authPolicies {
	var out authPolicies
	for _, p := range set.AuthPolicies {
		if len(set.Problems(policy.AuthPolicyKey(p))) == 0 && p.HasRules() && t.foundRef(p.Namespace, p.Spec.TargetRef) {
			out = append(out, p)
		}
	}
	return out
}

// on reports whether an AuthPolicy is attached to an object of path: its Gateway or one
// listener of it, its route or the path's rule of it.
func (a authPolicies) on(path *Path) bool {
	for _, p := range a {
		if refOnPath(p.Namespace, p.Spec.TargetRef, path) {
			return true
		}
	}
	return false
}

// refOnPath reports whether a policy of namespace ns with target ref attaches to an object
// of path.
func refOnPath(ns string, ref gatewayv1.LocalPolicyTargetReferenceWithSectionName, path *Path) bool {
	section := func(name string) bool { return ref.SectionName == nil || string(*ref.SectionName) == name }
	switch ref.Kind {
	case "Gateway":
		return ns == path.Gateway.Namespace && string(ref.Name) == path.Gateway.Name && section(string(path.Listener.Name))
	case "HTTPRoute", "GRPCRoute":
		return path.isRoute(string(ref.Kind), ns, string(ref.Name)) && section(path.RuleName)
	}
	return false
}

// foundRef is found for a target reference of any policy kind.
func (t targets) foundRef(ns string, ref gatewayv1.LocalPolicyTargetReferenceWithSectionName) bool {
	return t.found(&kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: ns}, Spec: kuadrantv1.RateLimitPolicySpec{TargetRef: ref}})
}

// checkKey is one predicate checked with or without auth declared.
type checkKey struct {
	predicate string
	auth      bool
}

// check returns the operator's check of a predicate, withAuth telling whether an
// AuthPolicy is on the path, computing it once.
func (c operatorChecks) check(predicate string, withAuth bool) error {
	k := checkKey{predicate, withAuth}
	err, known := c[k]
	if !known {
		err = wasmshim.OperatorCheck(predicate, withAuth)
		c[k] = err
	}
	return err
}
