package policy

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
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
// read and the validation problems of each. Objects that failed validation are in the Set
// too (merging reports a RateLimitPolicy that is Invalid); objects that could not be decoded
// are not.
type Set struct {
	// Gateways are the Gateways read, in input order.
	Gateways []*gatewayv1.Gateway
	// HTTPRoutes are the HTTPRoutes read, in input order.
	HTTPRoutes []*gatewayv1.HTTPRoute
	// Policies are the RateLimitPolicies read, in input order.
	Policies []*RateLimitPolicy
	// Namespaces are the Namespaces read, in input order.
	Namespaces []*Namespace

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
