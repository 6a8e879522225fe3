package kuadrant

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// policyConditions returns the Accepted condition of a policy of the kind (its generation
// gen), and, once accepted, its Enforced condition from enforce: not accepted when the
// policy has problems (quoting each) or its target (named target) was not found.
func policyConditions(kind string, gen int64, now metav1.Time, problems field.ErrorList, found bool, target string, enforce func() (bool, string, string)) []metav1.Condition {
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
		return []metav1.Condition{cond(ConditionAccepted, false, ReasonTargetNotFound, fmt.Sprintf("%s target %s was not found", kind, target))}
	}
	ok, reason, msg := enforce()
	return []metav1.Condition{
		cond(ConditionAccepted, true, ReasonAccepted, kind+" has been accepted"),
		cond(ConditionEnforced, ok, reason, msg),
	}
}
