package egv1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// BackendTrafficPolicy configures how Envoy Gateway's proxies treat the traffic of the
// Gateways, listeners, routes and route rules it targets. rlpkit reads its targets, its
// rate limits and its merge type; the other fields are kept as written (Unread).
type BackendTrafficPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the policy.
	Spec BackendTrafficPolicySpec `json:"spec"`
	// Status is the status a controller wrote; rlpkit computes its own and ignores it.
	Status Unread `json:"status,omitzero"`
}

// BackendTrafficPolicySpec is what a BackendTrafficPolicy asks for. Either TargetRef or
// TargetRefs must be set, or TargetSelectors must select something.
type BackendTrafficPolicySpec struct {
	// TargetRef is the one object the policy targets, in its namespace: a Gateway (a listener
	// with SectionName) or an HTTPRoute (a rule with SectionName). Deprecated: use
	// TargetRefs; when both are set TargetRef wins, as in Envoy Gateway.
	// +optional
	TargetRef *gatewayv1.LocalPolicyTargetReferenceWithSectionName `json:"targetRef,omitempty"`
	// TargetRefs are the objects the policy targets, in its namespace.
	// +optional
	TargetRefs []gatewayv1.LocalPolicyTargetReferenceWithSectionName `json:"targetRefs,omitempty"`
	// TargetSelectors select targets by kind and labels.
	// +optional
	TargetSelectors []TargetSelector `json:"targetSelectors,omitempty"`

	// MergeType, on a policy targeting routes, merges it into the policy of the closest
	// parent (a listener's, else the Gateway's): StrategicMerge or JSONMerge. Unset, the most
	// specific policy alone applies.
	// +optional
	MergeType *MergeType `json:"mergeType,omitempty"`

	// RateLimit is the policy's rate limits.
	// +optional
	RateLimit *RateLimitSpec `json:"rateLimit,omitempty"`

	// The fields that do not concern rate limits, kept as written.
	AdmissionControl  Unread `json:"admissionControl,omitzero"`
	BandwidthLimit    Unread `json:"bandwidthLimit,omitzero"`
	CircuitBreaker    Unread `json:"circuitBreaker,omitzero"`
	Compression       Unread `json:"compression,omitzero"`
	Compressor        Unread `json:"compressor,omitzero"`
	Connection        Unread `json:"connection,omitzero"`
	DNS               Unread `json:"dns,omitzero"`
	FaultInjection    Unread `json:"faultInjection,omitzero"`
	HealthCheck       Unread `json:"healthCheck,omitzero"`
	HTTP2             Unread `json:"http2,omitzero"`
	HTTPUpgrade       Unread `json:"httpUpgrade,omitzero"`
	LoadBalancer      Unread `json:"loadBalancer,omitzero"`
	ProxyProtocol     Unread `json:"proxyProtocol,omitzero"`
	RequestBuffer     Unread `json:"requestBuffer,omitzero"`
	ResponseOverride  Unread `json:"responseOverride,omitzero"`
	Retry             Unread `json:"retry,omitzero"`
	RoutingType       Unread `json:"routingType,omitzero"`
	TCPKeepalive      Unread `json:"tcpKeepalive,omitzero"`
	Telemetry         Unread `json:"telemetry,omitzero"`
	Timeout           Unread `json:"timeout,omitzero"`
	UseClientProtocol Unread `json:"useClientProtocol,omitzero"`
}

// Targets returns the policy's explicit targets: TargetRef alone when set, else TargetRefs.
func (s *BackendTrafficPolicySpec) Targets() []gatewayv1.LocalPolicyTargetReferenceWithSectionName {
	if s.TargetRef != nil {
		return []gatewayv1.LocalPolicyTargetReferenceWithSectionName{*s.TargetRef}
	}
	return s.TargetRefs
}

// MergeType is how a route's policy merges into its parent's.
type MergeType string

// The merge types. Replace is not valid on a BackendTrafficPolicy.
const (
	// StrategicMerge merges the route's rate-limit rules with the parent's, the route's
	// first.
	StrategicMerge MergeType = "StrategicMerge"
	// JSONMerge replaces the parent's rule list with the route's.
	JSONMerge MergeType = "JSONMerge"
	// Replace is not a valid MergeType here.
	Replace MergeType = "Replace"
)

// TargetSelector selects targets of one kind by labels.
type TargetSelector struct {
	// Group MUST be gateway.networking.k8s.io (its default).
	// +optional
	Group *gatewayv1.Group `json:"group,omitempty"`
	// Kind is the kind of the targets: Gateway or HTTPRoute.
	Kind gatewayv1.Kind `json:"kind"`
	// Namespaces says which namespaces' objects are considered; unset, the policy's.
	// +optional
	Namespaces *TargetSelectorNamespaces `json:"namespaces,omitempty"`
	// MatchLabels select objects with all these labels.
	// +optional
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MatchExpressions select objects matching every requirement.
	// +optional
	MatchExpressions []metav1.LabelSelectorRequirement `json:"matchExpressions,omitempty"`
}

// TargetNamespaceFrom says where a TargetSelector looks for targets.
type TargetNamespaceFrom string

// The namespaces a TargetSelector considers.
const (
	// TargetNamespaceFromSame considers the policy's namespace (the default).
	TargetNamespaceFromSame TargetNamespaceFrom = "Same"
	// TargetNamespaceFromAll considers every namespace.
	TargetNamespaceFromAll TargetNamespaceFrom = "All"
	// TargetNamespaceFromSelector considers the namespaces Selector matches.
	TargetNamespaceFromSelector TargetNamespaceFrom = "Selector"
)

// TargetSelectorNamespaces is the namespaces a TargetSelector considers. Selecting targets
// in another namespace than the policy's needs a ReferenceGrant in Envoy Gateway.
type TargetSelectorNamespaces struct {
	// From is Same (default), All or Selector.
	From TargetNamespaceFrom `json:"from"`
	// Selector matches namespace labels; required with From Selector.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}
