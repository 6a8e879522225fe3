package kuadrantv1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// AuthPolicyKind is the kind of a kuadrant.io/v1 AuthPolicy.
const AuthPolicyKind = "AuthPolicy"

// AuthPolicy is a kuadrant.io/v1 AuthPolicy as far as rate limiting sees it: where it is
// attached, and whether it holds rules. The rules themselves (authentication, metadata,
// authorization, response, callbacks) and the named patterns are kept as written and not
// interpreted: Authorino evaluates them; rlpkit only needs to know on which paths an
// AuthPolicy sets auth.*.
// +kubebuilder:object:generate=false
type AuthPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy's target and rules.
	Spec AuthPolicySpec `json:"spec,omitempty"`
	// Status is kept as read; package kuadrant computes the status the operator would write.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	Status map[string]any `json:"status,omitempty"`
}

// AuthPolicySpec is an AuthPolicy's target and its rules: implicit defaults (rules, when
// and patterns at the top level), or explicit defaults, or overrides.
// +kubebuilder:object:generate=false
type AuthPolicySpec struct {
	// TargetRef is the Gateway or HTTPRoute in the policy's namespace, and optionally one
	// of its listeners or rules (sectionName), that the policy attaches to.
	TargetRef gatewayv1.LocalPolicyTargetReferenceWithSectionName `json:"targetRef"`
	// Defaults are rules that a more specific policy may replace.
	Defaults *MergeableAuthPolicySpec `json:"defaults,omitempty"`
	// Overrides are rules that replace those of more specific policies.
	Overrides *MergeableAuthPolicySpec `json:"overrides,omitempty"`

	AuthPolicySpecProper `json:",inline"`
}

// MergeableAuthPolicySpec is an AuthPolicy's defaults or overrides.
// +kubebuilder:object:generate=false
type MergeableAuthPolicySpec struct {
	// Strategy is atomic or merge.
	Strategy string `json:"strategy,omitempty"`

	AuthPolicySpecProper `json:",inline"`
}

// AuthPolicySpecProper is an AuthPolicy's rules, the named patterns they use and the
// predicates that gate the whole policy.
// +kubebuilder:object:generate=false
type AuthPolicySpecProper struct {
	// NamedPatterns are Authorino pattern expressions the rules may name; kept as written.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	NamedPatterns map[string]any `json:"patterns,omitempty"`
	// When are CEL predicates that must all hold for the policy to be enforced.
	When []WhenPredicate `json:"when,omitempty"`
	// AuthScheme is the policy's rules (authentication, metadata, authorization,
	// response, callbacks); kept as written.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	AuthScheme map[string]any `json:"rules,omitempty"`
}

// HasRules reports whether the block in effect holds a rule the CRD counts (an
// authentication, metadata, authorization or callbacks entry, a deny response, a success
// header or filter); the CRD refuses an AuthPolicy without one.
func (p *AuthPolicy) HasRules() bool {
	proper, _, _ := p.Spec.Proper()
	return proper.hasAuthRules()
}
