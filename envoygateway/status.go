package envoygateway

import (
	"cmp"
	"slices"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
	"github.com/rlpkit/rlpkit/policyapi"
)

// The reasons of a policy's Accepted condition, Gateway API's.
const (
	ReasonAccepted       = "Accepted"
	ReasonConflicted     = "Conflicted"
	ReasonInvalid        = "Invalid"
	ReasonTargetNotFound = "TargetNotFound"
)

// The types of the conditions Envoy Gateway writes on a BackendTrafficPolicy's ancestor.
const (
	// ConditionAccepted says whether the policy took effect there.
	ConditionAccepted = "Accepted"
	// ConditionMerged, True, says on a route policy with a mergeType that it was merged
	// into a listener's or Gateway's policy ("Merged with policy ns/name"), and on that
	// policy which routes' policies were merged into it.
	ConditionMerged = "Merged"
	// ConditionOverridden, True, says which more specific targets' policies replace this
	// one: listeners and routes under a Gateway policy, rules under a route policy.
	ConditionOverridden = "Overridden"
	// ConditionWarning, True with reason DeprecatedField, names the deprecated fields the
	// policy sets (spec.targetRef, spec.compression) and their replacements.
	ConditionWarning = "Warning"
)

// The reasons of the Merged, Overridden and Warning conditions.
const (
	ReasonMerged          = "Merged"
	ReasonOverridden      = "Overridden"
	ReasonDeprecatedField = "DeprecatedField"
)

// StatusOutput is how rlpkit compile prints a policy's Accepted condition for one
// ancestor, as Envoy Gateway writes it in the policy's status.ancestors.
type StatusOutput struct {
	// Policy is the policy's "namespace/name".
	Policy string `json:"policy"`
	// Ancestor is "namespace/gateway" or "namespace/gateway/listener": the Gateway of a
	// Gateway or listener target, each parentRef's Gateway (and sectionName) of a route
	// target; "" for a target that is not among the inputs (TargetNotFound).
	Ancestor string `json:"ancestor"`
	// Accepted is "True" or "False"; empty on an ancestor that has only a Merged condition
	// (a merged route policy's listener, when its parentRef names none).
	Accepted string `json:"accepted,omitempty"`
	// Reason is Accepted, Conflicted, Invalid or TargetNotFound.
	Reason string `json:"reason,omitempty"`
	// Message says why, as Envoy Gateway does.
	Message string `json:"message,omitempty"`
	// Conditions are the ancestor's other conditions (Merged, Warning, Overridden), in
	// the order Envoy Gateway writes them; omitted when there are none.
	Conditions []policyapi.ConditionOutput `json:"conditions,omitempty"`
}

// statusOutput returns the printed form of a status this package made: its Accepted
// condition, then the others.
func statusOutput(st *policyapi.PolicyStatus) StatusOutput {
	out := StatusOutput{Policy: st.Name, Ancestor: st.Ancestor}
	for _, c := range st.Conditions {
		if c.Type == ConditionAccepted {
			out.Accepted, out.Reason, out.Message = string(c.Status), c.Reason, c.Message
			continue
		}
		out.Conditions = append(out.Conditions, policyapi.ConditionOutput{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
	}
	return out
}

// statuses accumulates the conditions of policies per ancestor, as Envoy Gateway sets them:
// a condition replaces the one of its type, others keep their place and a new type goes
// last; an acceptance is only set when no Accepted condition is there.
type statuses struct {
	list []*policyapi.PolicyStatus
}

func (s *statuses) find(policy, ancestor string) *policyapi.PolicyStatus {
	for _, st := range s.list {
		if st.Name == policy && st.Ancestor == ancestor {
			return st
		}
	}
	return nil
}

// set sets condition c of policy on each ancestor.
func (s *statuses) set(policy string, ancestors []string, c metav1.Condition) {
	for _, a := range ancestors {
		st := s.find(policy, a)
		if st == nil {
			st = &policyapi.PolicyStatus{Name: policy, Ancestor: a}
			s.list = append(s.list, st)
		}
		if old := st.Condition(c.Type); old != nil {
			*old = c
		} else {
			st.Conditions = append(st.Conditions, c)
		}
	}
}

// fail sets Accepted False with reason and message for each ancestor.
func (s *statuses) fail(policy string, ancestors []string, reason, message string) {
	s.set(policy, ancestors, metav1.Condition{Type: ConditionAccepted, Status: metav1.ConditionFalse, Reason: reason, Message: message})
}

// accept sets Accepted True on each ancestor that has no Accepted condition yet.
func (s *statuses) accept(policy string, ancestors []string) {
	for _, a := range ancestors {
		if st := s.find(policy, a); st == nil || st.Condition(ConditionAccepted) == nil {
			s.set(policy, []string{a}, metav1.Condition{Type: ConditionAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted, Message: "Policy has been accepted."})
		}
	}
}

// setTrue sets a True condition of type t with reason and message on each ancestor.
func (s *statuses) setTrue(policy string, ancestors []string, t, reason, message string) {
	s.set(policy, ancestors, metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: message})
}

// deprecated sets the Warning condition naming the deprecated fields policy p sets, when
// it sets any: "spec.compression is deprecated, use spec.compressor instead;
// spec.targetRef is deprecated, use spec.targetRefs instead" (sorted by field).
func (s *statuses) deprecated(p *egv1alpha1.BackendTrafficPolicy, name string, ancestors []string) {
	var parts []string
	if list, _ := p.Spec.Compression.Value().([]any); len(list) > 0 {
		parts = append(parts, "spec.compression is deprecated, use spec.compressor instead")
	}
	if p.Spec.TargetRef != nil {
		parts = append(parts, "spec.targetRef is deprecated, use spec.targetRefs instead")
	}
	if len(parts) > 0 {
		s.setTrue(name, ancestors, ConditionWarning, ReasonDeprecatedField, strings.Join(parts, "; "))
	}
}

// sorted returns the statuses by policy, then ancestor.
func (s *statuses) sorted() []policyapi.PolicyStatus {
	out := make([]policyapi.PolicyStatus, len(s.list))
	for i, st := range s.list {
		out[i] = *st
	}
	slices.SortFunc(out, func(a, b policyapi.PolicyStatus) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Ancestor, b.Ancestor))
	})
	return out
}

// conditionMessage writes an error as Envoy Gateway writes it in a condition: the first
// letter in upper case, a full stop at the end.
func conditionMessage(err error) string {
	r := []rune(err.Error())
	if len(r) == 0 {
		return ""
	}
	if unicode.IsLetter(r[0]) {
		r[0] = unicode.ToUpper(r[0])
	}
	if r[len(r)-1] != '.' {
		r = append(r, '.')
	}
	return string(r)
}
