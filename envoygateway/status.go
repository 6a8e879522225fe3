package envoygateway

import (
	"cmp"
	"slices"
	"unicode"
)

// The reasons of a policy's Accepted condition, Gateway API's.
const (
	ReasonAccepted       = "Accepted"
	ReasonConflicted     = "Conflicted"
	ReasonInvalid        = "Invalid"
	ReasonTargetNotFound = "TargetNotFound"
)

// Status is a policy's Accepted condition for one ancestor, as Envoy Gateway writes it in
// the policy's status.ancestors.
type Status struct {
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

// statuses accumulates the Accepted conditions of policies per ancestor, as Envoy Gateway
// sets them: an error replaces what was there, an acceptance is only set when nothing was.
type statuses struct {
	list []*Status
}

func (s *statuses) find(policy, ancestor string) *Status {
	for _, st := range s.list {
		if st.Policy == policy && st.Ancestor == ancestor {
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
			st = &Status{Policy: policy, Ancestor: a}
			s.list = append(s.list, st)
		}
		st.Accepted, st.Reason, st.Message = "False", reason, message
	}
}

// accept sets Accepted True on each ancestor that has no Accepted condition yet.
func (s *statuses) accept(policy string, ancestors []string) {
	for _, a := range ancestors {
		if s.find(policy, a) == nil {
			s.list = append(s.list, &Status{Policy: policy, Ancestor: a, Accepted: "True", Reason: ReasonAccepted, Message: "Policy has been accepted."})
		}
	}
}

// sorted returns the statuses by policy, then ancestor.
func (s *statuses) sorted() []Status {
	out := make([]Status, len(s.list))
	for i, st := range s.list {
		out[i] = *st
	}
	slices.SortFunc(out, func(a, b Status) int {
		return cmp.Or(cmp.Compare(a.Policy, b.Policy), cmp.Compare(a.Ancestor, b.Ancestor))
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
