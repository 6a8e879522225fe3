package egv1alpha1

import "k8s.io/apimachinery/pkg/runtime/schema"

// The API group, version and kind of a BackendTrafficPolicy.
const (
	Group   = "gateway.envoyproxy.io"
	Version = "v1alpha1"
	Kind    = "BackendTrafficPolicy"
)

// GroupVersion is gateway.envoyproxy.io/v1alpha1.
var GroupVersion = schema.GroupVersion{Group: Group, Version: Version}
