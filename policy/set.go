package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// The kinds a Set holds.
const (
	KindGateway         = "Gateway"
	KindHTTPRoute       = "HTTPRoute"
	KindRateLimitPolicy = Kind
	KindNamespace       = "Namespace"
)

// ObjectKey identifies an object of a Set. Namespace is empty for a Namespace.
type ObjectKey struct {
	// Kind is the object's kind (KindGateway, ...).
	Kind string
	// Group tells apart kinds of one name in two API groups: empty for every kind but the
	// kuadrant.io/v1 RateLimitPolicy, whose Group is kuadrantv1.Group, and Envoy Gateway's
	// BackendTrafficPolicy, whose Group is egv1alpha1.Group. It is not printed.
	Group string
	// Namespace is the object's namespace, empty for a Namespace.
	Namespace string
	// Name is the object's name.
	Name string
}

// String returns "Kind namespace/name", or "Kind name" for a Namespace.
func (k ObjectKey) String() string {
	if k.Namespace == "" {
		return k.Kind + " " + k.Name
	}
	return k.Kind + " " + k.Namespace + "/" + k.Name
}

// Set is the objects read from some inputs, each kind in input order, with where each was
// read and the validation problems of each. Objects that failed validation, or held values
// of the wrong type (left out), are in the Set too (merging reports a RateLimitPolicy that
// is Invalid); objects without a name, or that are the same object again, are not.
type Set struct {
	// Gateways are the Gateways read, in input order.
	Gateways []*gatewayv1.Gateway
	// HTTPRoutes are the HTTPRoutes read, in input order.
	HTTPRoutes []*gatewayv1.HTTPRoute
	// GRPCRoutes are the GRPCRoutes read, in input order.
	GRPCRoutes []*gatewayv1.GRPCRoute
	// Policies are the RateLimitPolicies read, in input order.
	Policies []*RateLimitPolicy
	// Namespaces are the Namespaces read, in input order.
	Namespaces []*Namespace
	// ConfigMaps are the ConfigMaps read, in input order: package envoygateway resolves a
	// BackendTrafficPolicy's responseOverride bodies against them.
	ConfigMaps []*ConfigMap
	// PoliciesV1 are the kuadrant.io/v1 RateLimitPolicies read, in input order (package
	// kuadrant merges them; package merge reads Policies only).
	PoliciesV1 []*kuadrantv1.RateLimitPolicy
	// TokenPolicies are the kuadrant.io/v1alpha1 TokenRateLimitPolicies read, in input
	// order; package kuadrant compiles them with PoliciesV1.
	TokenPolicies []*kuadrantv1alpha1.TokenRateLimitPolicy
	// AuthPolicies are the kuadrant.io/v1 AuthPolicies read, in input order; package
	// kuadrant reads where they attach to know on which paths auth.* is set.
	AuthPolicies []*kuadrantv1.AuthPolicy
	// BackendTrafficPolicies are Envoy Gateway's BackendTrafficPolicies
	// (gateway.envoyproxy.io/v1alpha1) read, in input order; package envoygateway compiles
	// them.
	BackendTrafficPolicies []*egv1alpha1.BackendTrafficPolicy

	// PluginConfigs are the PluginConfig documents read and found valid, in input order.
	// They are checked, not merged: they are what compiling makes.
	PluginConfigs []*descriptor.PluginConfig
	// LimitLists are the limits files (limitador's format) read and found valid, in input
	// order. They are checked, not merged.
	LimitLists [][]limitador.Limit
	// Notices say which inputs were skipped and why: other Kubernetes objects and files that
	// are not Kubernetes objects, one per file. They are not problems.
	Notices []Notice

	sources  map[ObjectKey]Source
	lines    map[ObjectKey]func(path string) int // field path -> line
	problems map[ObjectKey]field.ErrorList
}

// Source returns where the object was read.
func (s *Set) Source(k ObjectKey) (Source, bool) {
	src, ok := s.sources[k]
	return src, ok
}

// FieldSource returns where a field of the object was read: the line of the field path
// ("spec.targetRef", "spec.parentRefs[0].name"), or of its deepest parent that is written
// when the field is not, or where the object was read when path is empty.
func (s *Set) FieldSource(k ObjectKey, path string) (Source, bool) {
	src, ok := s.sources[k]
	if !ok || path == "" {
		return src, ok
	}
	if line := s.lines[k]; line != nil {
		if l := line(path); l > 0 {
			src.Line = l
		}
	}
	return src, true
}

// Problems returns the validation problems of the object; nil when it is valid.
func (s *Set) Problems(k ObjectKey) field.ErrorList { return s.problems[k] }

// PolicyKey returns the key of a RateLimitPolicy.
func PolicyKey(p *RateLimitPolicy) ObjectKey {
	return ObjectKey{Kind: KindRateLimitPolicy, Namespace: p.Namespace, Name: p.Name}
}

// Notice says that a file, or some of its documents, was skipped: "skipped deploy.yaml:
// apps/v1 Deployment". It is information, not a problem or a warning.
type Notice struct {
	// File is the input's name.
	File string
	// Detail says what was skipped: the object types ("apps/v1 Deployment, v1 Service") or
	// "not a Kubernetes object".
	Detail string
}

// String returns "skipped FILE: DETAIL".
func (n Notice) String() string { return "skipped " + n.File + ": " + n.Detail }
