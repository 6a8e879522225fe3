package policyapi

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PolicyStatus is the status of one policy, of any API: its conditions as the API's
// controller writes them in the policy's status (a controller patches them as they are).
// Kuadrant's APIs have one status per policy; Envoy Gateway's has one per ancestor (the
// Gateway, or listener, the policy's target is reached through).
type PolicyStatus struct {
	// Name is the policy's "namespace/name".
	Name string `json:"name"`
	// Kind is the policy's kind where an API reads several kinds and it is not the first:
	// "TokenRateLimitPolicy" beside kuadrant.io/v1's RateLimitPolicies; empty otherwise.
	Kind string `json:"kind,omitempty"`
	// Ancestor is the "namespace/gateway" or "namespace/gateway/listener" the conditions
	// are about, where the API writes them per ancestor; empty otherwise, and for a target
	// that is not among the inputs.
	Ancestor string `json:"ancestor,omitempty"`
	// Conditions are the policy's conditions (Accepted, and Enforced where the API has
	// it), without the timestamps and generations a controller adds.
	Conditions []metav1.Condition `json:"conditions"`
}

// Condition returns the condition of type t, nil when there is none.
func (s *PolicyStatus) Condition(t string) *metav1.Condition {
	for i := range s.Conditions {
		if s.Conditions[i].Type == t {
			return &s.Conditions[i]
		}
	}
	return nil
}

// ConditionOutput is how rlpkit prints a condition: without the timestamps and
// generations a file-based compile has no use for.
type ConditionOutput struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// StatusOutput is how rlpkit compile prints a policy's status: {name, kind, conditions}.
type StatusOutput struct {
	Name       string            `json:"name"`
	Kind       string            `json:"kind,omitempty"`
	Conditions []ConditionOutput `json:"conditions"`
}

// StatusOutputs returns the printed form of statuses, an empty list for none.
func StatusOutputs(statuses []PolicyStatus) []StatusOutput {
	out := []StatusOutput{}
	for _, p := range statuses {
		po := StatusOutput{Name: p.Name, Kind: p.Kind}
		for _, c := range p.Conditions {
			po.Conditions = append(po.Conditions, ConditionOutput{Type: c.Type, Status: string(c.Status), Reason: c.Reason, Message: c.Message})
		}
		out = append(out, po)
	}
	return out
}
