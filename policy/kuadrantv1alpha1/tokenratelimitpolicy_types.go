// +kubebuilder:object:generate=true
// +groupName=kuadrant.io
// +versionName=v1alpha1
package kuadrantv1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

const (
	// Group is the API group of TokenRateLimitPolicy.
	Group = "kuadrant.io"
	// Version is the API version of TokenRateLimitPolicy.
	Version = "v1alpha1"
	// Kind is the kind of TokenRateLimitPolicy.
	Kind = "TokenRateLimitPolicy"
)

// GroupVersion is "kuadrant.io/v1alpha1".
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// AddToScheme registers TokenRateLimitPolicy and TokenRateLimitPolicyList under
// GroupVersion in a runtime.Scheme, so that a Kubernetes client can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &TokenRateLimitPolicy{}, &TokenRateLimitPolicyList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// TokenRateLimitPolicy limits the tokens spent through the Gateway, listener, HTTPRoute or
// route rule it targets: each limit is checked at the request and charged with the
// response's usage.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type TokenRateLimitPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	Spec TokenRateLimitPolicySpec `json:"spec,omitempty"`

	// Status is the observed state.
	// +optional
	Status TokenRateLimitPolicyStatus `json:"status,omitempty"`
}

// TokenRateLimitPolicyList is a list of TokenRateLimitPolicies, as the API server returns
// it.
//
// +kubebuilder:object:root=true
type TokenRateLimitPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the policies.
	Items []TokenRateLimitPolicy `json:"items"`
}

// TokenRateLimitPolicySpec is the desired state of a TokenRateLimitPolicy: a target and
// exactly one of bare limits (implicit atomic defaults), defaults or overrides.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.defaults) && has(self.limits))",message="Implicit and explicit defaults are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!(has(self.defaults) && has(self.overrides))",message="Overrides and explicit defaults are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!(has(self.overrides) && has(self.limits))",message="Overrides and implicit defaults are mutually exclusive"
// +kubebuilder:validation:XValidation:rule="!(has(self.overrides) || has(self.defaults)) ? has(self.limits) && size(self.limits) > 0 : true",message="At least one spec.limits must be defined"
// +kubebuilder:validation:XValidation:rule="has(self.overrides) ? has(self.overrides.limits) && size(self.overrides.limits) > 0 : true",message="At least one spec.overrides.limits must be defined"
// +kubebuilder:validation:XValidation:rule="has(self.defaults) ? has(self.defaults.limits) && size(self.defaults.limits) > 0 : true",message="At least one spec.defaults.limits must be defined"
type TokenRateLimitPolicySpec struct {
	// TargetRef is the Gateway or HTTPRoute in the policy's namespace, and optionally a
	// section of it: a listener name of a Gateway, or a rule name of a route (an unnamed
	// rule is rule-N, N counting from 1).
	// +kubebuilder:validation:XValidation:rule="self.group == 'gateway.networking.k8s.io'",message="Invalid targetRef.group. The only supported value is 'gateway.networking.k8s.io'"
	// +kubebuilder:validation:XValidation:rule="self.kind == 'HTTPRoute' || self.kind == 'Gateway'",message="Invalid targetRef.kind. The only supported values are 'HTTPRoute' and 'Gateway'"
	TargetRef gatewayv1.LocalPolicyTargetReferenceWithSectionName `json:"targetRef"`

	// Defaults are limits that more specific policies may replace.
	// +optional
	Defaults *MergeableTokenRateLimitPolicySpec `json:"defaults,omitempty"`

	// Overrides are limits that replace those of more specific policies.
	// +optional
	Overrides *MergeableTokenRateLimitPolicySpec `json:"overrides,omitempty"`

	// RateLimitPolicySpecProper holds bare limits and when: implicit atomic defaults.
	kuadrantv1.RateLimitPolicySpecProper `json:",inline"`
}

// MergeableTokenRateLimitPolicySpec is a defaults or overrides block.
type MergeableTokenRateLimitPolicySpec struct {
	// Strategy is kuadrantv1.StrategyAtomic (the default) or kuadrantv1.StrategyMerge.
	// +kubebuilder:validation:Enum=atomic;merge
	// +optional
	Strategy string `json:"strategy,omitempty"`

	// RateLimitPolicySpecProper holds the block's limits and when.
	kuadrantv1.RateLimitPolicySpecProper `json:",inline"`
}

// TokenRateLimitPolicyStatus is the observed state of a TokenRateLimitPolicy.
type TokenRateLimitPolicyStatus struct {
	// ObservedGeneration is the generation the status is for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are of the types Accepted and Enforced.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// RateLimitSpec returns the spec as a kuadrant.io/v1 RateLimitPolicy's: the same target
// and body, so that the merge strategies and paths of RateLimitPolicies apply to it as
// kuadrant-operator applies them.
func (s *TokenRateLimitPolicySpec) RateLimitSpec() kuadrantv1.RateLimitPolicySpec {
	out := kuadrantv1.RateLimitPolicySpec{TargetRef: s.TargetRef, RateLimitPolicySpecProper: s.RateLimitPolicySpecProper}
	if s.Defaults != nil {
		out.Defaults = &kuadrantv1.MergeableRateLimitPolicySpec{Strategy: s.Defaults.Strategy, RateLimitPolicySpecProper: s.Defaults.RateLimitPolicySpecProper}
	}
	if s.Overrides != nil {
		out.Overrides = &kuadrantv1.MergeableRateLimitPolicySpec{Strategy: s.Overrides.Strategy, RateLimitPolicySpecProper: s.Overrides.RateLimitPolicySpecProper}
	}
	return out
}
