// +kubebuilder:object:generate=true
// +groupName=kuadrant.io
// +versionName=v1
package kuadrantv1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

const (
	// Group is the API group of RateLimitPolicy.
	Group = "kuadrant.io"
	// Version is the API version of RateLimitPolicy.
	Version = "v1"
	// Kind is the kind of RateLimitPolicy.
	Kind = "RateLimitPolicy"
)

// GroupVersion is "kuadrant.io/v1".
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// AddToScheme registers RateLimitPolicy and RateLimitPolicyList under GroupVersion in a
// runtime.Scheme, so that a Kubernetes client can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &RateLimitPolicy{}, &RateLimitPolicyList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// The merge strategies of a defaults or overrides block.
const (
	// StrategyAtomic takes a policy's rules all or none (the default).
	StrategyAtomic = "atomic"
	// StrategyMerge takes a policy's rules one by one, by limit name.
	StrategyMerge = "merge"
)

// RateLimitPolicy limits the requests of the Gateway, listener, HTTPRoute or route rule it
// targets.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type RateLimitPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state.
	Spec RateLimitPolicySpec `json:"spec"`

	// Status is the observed state.
	// +optional
	Status RateLimitPolicyStatus `json:"status,omitempty"`
}

// RateLimitPolicyList is a list of RateLimitPolicies, as the API server returns it.
//
// +kubebuilder:object:root=true
type RateLimitPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	// Items are the policies.
	Items []RateLimitPolicy `json:"items"`
}

// RateLimitPolicySpec is the desired state of a RateLimitPolicy: a target and exactly one of
// bare limits (implicit atomic defaults), defaults or overrides.
//
// +kubebuilder:validation:XValidation:rule="!(has(self.defaults) && (has(self.limits) || has(self.when)))",message="Implicit and explicit defaults are mutually exclusive: move limits and when into spec.defaults"
// +kubebuilder:validation:XValidation:rule="!(has(self.defaults) && has(self.overrides))",message="Overrides and explicit defaults are mutually exclusive: keep one of spec.defaults and spec.overrides"
// +kubebuilder:validation:XValidation:rule="!(has(self.overrides) && (has(self.limits) || has(self.when)))",message="Overrides and implicit defaults are mutually exclusive: move limits and when into spec.overrides"
// +kubebuilder:validation:XValidation:rule="has(self.defaults) || has(self.overrides) || (has(self.limits) && size(self.limits) > 0)",message="at least one limit is required: spec.limits, spec.defaults.limits or spec.overrides.limits"
type RateLimitPolicySpec struct {
	// TargetRef is the Gateway, HTTPRoute or GRPCRoute in the policy's namespace, and
	// optionally a section of it: a listener name of a Gateway, or a rule name of a route
	// (an unnamed rule is rule-N, N counting from 1).
	// +kubebuilder:validation:XValidation:rule="self.group == 'gateway.networking.k8s.io'",message="invalid targetRef.group. The only supported value is 'gateway.networking.k8s.io'"
	// +kubebuilder:validation:XValidation:rule="self.kind == 'Gateway' || self.kind == 'HTTPRoute' || self.kind == 'GRPCRoute'",message="invalid targetRef.kind. The only supported values are 'Gateway', 'HTTPRoute' and 'GRPCRoute'"
	TargetRef gatewayv1.LocalPolicyTargetReferenceWithSectionName `json:"targetRef"`

	// Defaults are limits that more specific policies may replace.
	// +optional
	Defaults *MergeableRateLimitPolicySpec `json:"defaults,omitempty"`

	// Overrides are limits that replace those of more specific policies.
	// +optional
	Overrides *MergeableRateLimitPolicySpec `json:"overrides,omitempty"`

	// RateLimitPolicySpecProper holds bare limits and when: implicit atomic defaults.
	RateLimitPolicySpecProper `json:",inline"`
}

// MergeableRateLimitPolicySpec is a defaults or overrides block.
//
// +kubebuilder:validation:XValidation:rule="has(self.limits) && size(self.limits) > 0",message="at least one limit is required"
type MergeableRateLimitPolicySpec struct {
	// Strategy is StrategyAtomic (the default) or StrategyMerge.
	// +kubebuilder:validation:Enum=atomic;merge
	// +optional
	Strategy string `json:"strategy,omitempty"`

	// RateLimitPolicySpecProper holds the block's limits and when.
	RateLimitPolicySpecProper `json:",inline"`
}

// RateLimitPolicySpecProper is a set of limits and the predicates that must hold for any
// of them to apply.
type RateLimitPolicySpecProper struct {
	// When are CEL predicates over Kuadrant's well-known attributes; all must hold. When
	// present, it holds at least one.
	// +kubebuilder:validation:MinItems=1
	// +optional
	When []WhenPredicate `json:"when,omitempty"`

	// Limits are the limits by name; a name is not empty.
	// +kubebuilder:validation:XValidation:rule="self.all(name, size(name) > 0)",message="a limit needs a name"
	// +optional
	Limits map[string]Limit `json:"limits,omitempty"`
}

// WhenPredicate is one CEL predicate.
type WhenPredicate struct {
	// Predicate is a CEL expression that evaluates to a bool; it is not blank.
	// +kubebuilder:validation:Pattern=`\S`
	Predicate string `json:"predicate"`
}

// Limit is one named limit: its rates, what it counts per, and when it applies.
type Limit struct {
	// When are CEL predicates; all must hold for the limit to apply. When present, it
	// holds at least one.
	// +kubebuilder:validation:MinItems=1
	// +optional
	When []WhenPredicate `json:"when,omitempty"`

	// Counters are CEL expressions whose values qualify the counter (one counter per
	// combination of values).
	// +optional
	Counters []Counter `json:"counters,omitempty"`

	// Rates are the limit's rates; each is a Limitador limit of its own.
	// +optional
	Rates []Rate `json:"rates,omitempty"`
}

// Counter is one counter qualifier.
type Counter struct {
	// Expression is a CEL expression. It holds no double quote or backslash:
	// kuadrant-operator writes it unescaped into Limitador's descriptors[0]["..."].
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Pattern=`^[^"\\]*$`
	Expression string `json:"expression"`
}

// Rate is a number of hits per window.
type Rate struct {
	// Limit is the number of hits admitted per window; a negative limit is 0.
	Limit int64 `json:"limit"`

	// Window is a duration matching ^([0-9]{1,5}(h|m|s|ms)){1,4}$; it is truncated to
	// whole seconds.
	// +kubebuilder:validation:Pattern=`^([0-9]{1,5}(h|m|s|ms)){1,4}$`
	Window string `json:"window"`
}

// RateLimitPolicyStatus is the observed state of a RateLimitPolicy.
type RateLimitPolicyStatus struct {
	// ObservedGeneration is the generation the status is for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are of the types Accepted and Enforced.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Proper returns the block that is in effect: the defaults, the overrides, or the bare
// limits and when, with its strategy and whether it is an override.
func (s *RateLimitPolicySpec) Proper() (proper RateLimitPolicySpecProper, strategy string, override bool) {
	switch {
	case s.Overrides != nil:
		return s.Overrides.RateLimitPolicySpecProper, strategyOf(s.Overrides.Strategy), true
	case s.Defaults != nil:
		return s.Defaults.RateLimitPolicySpecProper, strategyOf(s.Defaults.Strategy), false
	}
	return s.RateLimitPolicySpecProper, StrategyAtomic, false
}

func strategyOf(s string) string {
	if s == "" {
		return StrategyAtomic
	}
	return s
}
