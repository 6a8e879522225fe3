package kuadrant

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

// validPaths returns the valid paths (those with hostnames) each policy is on.
func validPaths(effective []EffectivePolicy) map[*kuadrantv1.RateLimitPolicy][]*EffectivePolicy {
	on := map[*kuadrantv1.RateLimitPolicy][]*EffectivePolicy{}
	for i := range effective {
		if len(effective[i].Path.Hostnames) == 0 {
			continue
		}
		for _, p := range effective[i].Policies {
			on[p] = append(on[p], &effective[i])
		}
	}
	return on
}

// policyConditions returns the Accepted condition of a policy of the kind (its generation
// gen), and, once accepted, its Enforced condition from enforce: not accepted when the
// policy has problems (quoting each) or its target ref was not found.
func policyConditions(kind string, gen int64, now metav1.Time, problems field.ErrorList, found bool, ref gatewayv1.LocalPolicyTargetReferenceWithSectionName, enforce func() (bool, string, string)) []metav1.Condition {
	cond := func(typ string, ok bool, reason, msg string) metav1.Condition {
		st := metav1.ConditionFalse
		if ok {
			st = metav1.ConditionTrue
		}
		return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: msg, ObservedGeneration: gen, LastTransitionTime: now}
	}
	switch {
	case len(problems) > 0:
		msgs := make([]string, 0, len(problems))
		for _, e := range problems {
			msgs = append(msgs, e.Error())
		}
		return []metav1.Condition{cond(ConditionAccepted, false, ReasonInvalid, kind+" is invalid: "+strings.Join(msgs, "; "))}
	case !found:
		target := string(ref.Name)
		if ref.SectionName != nil {
			target += "#" + string(*ref.SectionName)
		}
		return []metav1.Condition{cond(ConditionAccepted, false, ReasonTargetNotFound, fmt.Sprintf("%s target %s was not found", kind, target))}
	}
	ok, reason, msg := enforce()
	return []metav1.Condition{
		cond(ConditionAccepted, true, ReasonAccepted, kind+" has been accepted"),
		cond(ConditionEnforced, ok, reason, msg),
	}
}
