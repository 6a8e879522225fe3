// +groupName=apim.kuadrant.io
// +versionName=v1alpha1
package policy

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
)

const (
	// Group is the API group of RateLimitPolicy.
	Group = "apim.kuadrant.io"
	// Version is the API version of RateLimitPolicy.
	Version = "v1alpha1"
	// Kind is the kind of RateLimitPolicy.
	Kind = "RateLimitPolicy"
)

// GroupVersion is the group and version of RateLimitPolicy, "apim.kuadrant.io/v1alpha1".
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}

// AddToScheme registers RateLimitPolicy and RateLimitPolicyList under GroupVersion in a
// runtime.Scheme, so that a Kubernetes client can read and write them.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &RateLimitPolicy{}, &RateLimitPolicyList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// RateLimitPolicy attaches rate limiting to a Gateway or an HTTPRoute, following Gateway API
// policy attachment: a policy's Default applies unless something lower in the hierarchy
// overrides it, and its Override applies whatever lies below.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type RateLimitPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec defines the desired state of RateLimitPolicy.
	Spec RateLimitPolicySpec `json:"spec"`

	// Status defines the current state of RateLimitPolicy.
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

// RateLimitPolicySpec defines the desired state of RateLimitPolicy.
//
// +kubebuilder:object:generate=true
type RateLimitPolicySpec struct {
	// TargetRef identifies the Gateway or HTTPRoute, in the policy's namespace, the policy
	// applies to. Group MUST be "gateway.networking.k8s.io" and Kind "Gateway" or
	// "HTTPRoute".
	// +kubebuilder:validation:XValidation:rule="self.group == 'gateway.networking.k8s.io'",message="group must be gateway.networking.k8s.io"
	// +kubebuilder:validation:XValidation:rule="self.kind == 'Gateway' || self.kind == 'HTTPRoute'",message="kind must be Gateway or HTTPRoute"
	TargetRef gatewayv1.LocalPolicyTargetReference `json:"targetRef"`

	// Default is configuration for the target that policies lower in the hierarchy (an
	// HTTPRoute's, under a Gateway's) may replace.
	// +optional
	Default *RateLimitPolicyConfig `json:"default,omitempty"`

	// Override is configuration that replaces what policies lower in the hierarchy
	// define.
	// +optional
	Override *RateLimitPolicyConfig `json:"override,omitempty"`
}

// RateLimitPolicyConfig is one section (default or override) of a RateLimitPolicy.
//
// +kubebuilder:object:generate=true
type RateLimitPolicyConfig struct {
	// GatewayActions are evaluated by the gateway to build the descriptors sent to the
	// rate-limit service. When sections merge, gateway actions aggregate.
	// +optional
	GatewayActions []descriptor.GatewayAction `json:"gatewayActions,omitempty"`

	// RateLimits are the limits the rate-limit service enforces on those descriptors. When
	// sections merge, rate limits patch by (conditions, variables, seconds).
	// +optional
	RateLimits []RateLimitSpec `json:"rateLimits,omitempty"`
}

// RateLimitSpec is one limit: MaxValue hits per Seconds for the descriptors that satisfy
// every condition, counted separately for each combination of the variables' values.
//
// +kubebuilder:object:generate=true
type RateLimitSpec struct {
	// Conditions must all hold for the limit to apply: "KEY == VALUE", "KEY != VALUE", or a
	// CEL expression over descriptors. Empty means every descriptor of the domain.
	// +optional
	Conditions []string `json:"conditions"`

	// Variables are descriptor entry keys; one counter is kept per combination of their
	// values. Each MUST NOT be empty.
	// +optional
	// +kubebuilder:validation:items:MinLength=1
	Variables []string `json:"variables"`

	// MaxValue is the number of hits allowed per Seconds. It is required (Decode reports a
	// document without it) and MUST NOT be negative; 0 denies everything.
	// +kubebuilder:validation:Minimum=0
	MaxValue int `json:"max_value"`

	// Seconds is the window. It is required and MUST be greater than 0.
	// +kubebuilder:validation:Minimum=1
	Seconds int `json:"seconds"`
}

// RateLimitPolicyStatus defines the observed state of RateLimitPolicy.
//
// +kubebuilder:object:generate=true
type RateLimitPolicyStatus struct {
	// Conditions describe the current conditions of the RateLimitPolicy: Accepted and
	// Enforced.
	//
	// +optional
	// +listType=map
	// +listMapKey=type
	// +kubebuilder:validation:MaxItems=8
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ConditionType is the type of a RateLimitPolicy status condition.
type ConditionType string

// ConditionReason is the reason of a RateLimitPolicy status condition.
type ConditionReason string

const (
	// ConditionAccepted says whether the policy is valid and is the one used for its
	// target.
	//
	// Possible reasons for this condition to be True: Accepted.
	//
	// Possible reasons for this condition to be False: Conflicted, Invalid,
	// TargetNotFound.
	ConditionAccepted ConditionType = "Accepted"

	// ReasonAccepted is used with Accepted=True.
	ReasonAccepted ConditionReason = "Accepted"

	// ReasonConflicted is used with Accepted=False when an older policy targets the same
	// object (oldest creationTimestamp, then namespace/name, wins).
	ReasonConflicted ConditionReason = "Conflicted"

	// ReasonInvalid is used with Accepted=False when the policy fails validation.
	ReasonInvalid ConditionReason = "Invalid"

	// ReasonTargetNotFound is used with Accepted=False when the target is not among the
	// inputs.
	ReasonTargetNotFound ConditionReason = "TargetNotFound"
)

const (
	// ConditionEnforced says whether the policy's configuration takes effect on some
	// traffic.
	//
	// Possible reasons for this condition to be True: Enforced, PartiallyEnforced.
	//
	// Possible reasons for this condition to be False: Overridden, Unused.
	ConditionEnforced ConditionType = "Enforced"

	// ReasonEnforced is used with Enforced=True when all of the policy's configuration is in
	// effect.
	ReasonEnforced ConditionReason = "Enforced"

	// ReasonPartiallyEnforced is used with Enforced=True when some of the policy's rate
	// limits are replaced by another policy's on some routes.
	ReasonPartiallyEnforced ConditionReason = "PartiallyEnforced"

	// ReasonOverridden is used with Enforced=False when every piece of the policy's
	// configuration is replaced by other policies.
	ReasonOverridden ConditionReason = "Overridden"

	// ReasonUnused is used with Enforced=False when the policy reaches no traffic: a
	// Gateway policy with no attached route, a route attached to no Gateway, or a policy
	// without configuration.
	ReasonUnused ConditionReason = "Unused"
)
