package envoygateway

import (
	"cmp"
	"slices"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/rlpkit/rlpkit/policyapi"
)

// The reasons of a policy's Accepted condition, Gateway API's.
const (
	ReasonAccepted       = "Accepted"
	ReasonConflicted     = "Conflicted"
	ReasonInvalid        = "Invalid"
	ReasonTargetNotFound = "TargetNotFound"
)

// ConditionAccepted is the type of the one condition Envoy Gateway's statuses carry here.
const ConditionAccepted = "Accepted"

// StatusOutput is how rlpkit compile prints a policy's Accepted condition for one
// ancestor, as Envoy Gateway writes it in the policy's status.ancestors.
type StatusOutput struct {
	// Policy is the policy's "namespace/name".
	Policy string `json:"policy"`
	// Ancestor is "namespace/gateway" or "namespace/gateway/listener": the Gateway of a
	// Gateway or listener target, each parentRef's Gateway (and sectionName) of a route
	// target; "" for a target that is not among the inputs (TargetNotFound).
	Ancestor string `json:"ancestor"`
	// Accepted is "True" or "False".
	Accepted string `json:"accepted"`
	// Reason is Accepted, Conflicted, Invalid or TargetNotFound.
	Reason string `json:"reason"`
	// Message says why, as Envoy Gateway does.
	Message string `json:"message"`
}

// statusOutput returns the printed form of a status this package made: its Accepted
// condition.
func statusOutput(st *policyapi.PolicyStatus) StatusOutput {
	out := StatusOutput{Policy: st.Name, Ancestor: st.Ancestor}
	if c := st.Condition(ConditionAccepted); c != nil {
		out.Accepted, out.Reason, out.Message = string(c.Status), c.Reason, c.Message
	}
	return out
}

// statuses accumulates the Accepted conditions of policies per ancestor, as Envoy Gateway
// sets them: an error replaces what was there, an acceptance is only set when nothing was.
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

// fail sets Accepted False with reason and message for each ancestor.
func (s *statuses) fail(policy string, ancestors []string, reason, message string) {
	for _, a := range ancestors {
		st := s.find(policy, a)
		if st == nil {
			st = &policyapi.PolicyStatus{Name: policy, Ancestor: a}
			s.list = append(s.list, st)
		}
		st.Conditions = []metav1.Condition{{Type: ConditionAccepted, Status: metav1.ConditionFalse, Reason: reason, Message: message}}
	}
}

// accept sets Accepted True on each ancestor that has no Accepted condition yet.
func (s *statuses) accept(policy string, ancestors []string) {
	for _, a := range ancestors {
		if s.find(policy, a) == nil {
			s.list = append(s.list, &policyapi.PolicyStatus{Name: policy, Ancestor: a, Conditions: []metav1.Condition{
				{Type: ConditionAccepted, Status: metav1.ConditionTrue, Reason: ReasonAccepted, Message: "Policy has been accepted."}}})
		}
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
