package descriptor

// PluginConfig is the configuration an Envoy rate-limit filter consumes: the policies it picks
// from by the request's hostname, and what to do when the rate-limit service fails. It is the
// wire format between a controller (which compiles RateLimitPolicies into it) and a filter.
//
// Field names follow the "proposed new design" of the Kuadrant proposal "RateLimitPolicy
// targeting a Gateway resource": camelCase at the policy level, Envoy's snake_case inside
// actions. Decode also accepts the older schema (see LegacyPluginConfig) and converts it.
//
// +kubebuilder:object:generate=true
type PluginConfig struct {
	// FailureModeDeny, when true, rejects traffic when the rate-limit service cannot be
	// reached. Unset means false: traffic passes.
	// +optional
	FailureModeDeny *bool `json:"failureModeDeny,omitempty"`

	// Timeout is how long a filter waits for the rate-limit service before it treats the
	// call as failed (and FailureModeDeny decides), as a Go duration ("100ms", "1.5s"). It
	// MUST be at least 1ms, and is used in whole milliseconds. Unset means DefaultTimeout.
	// This field is an rlpkit extension of the proposal's schema (Envoy's rate-limit filter
	// calls it timeout).
	// +optional
	Timeout string `json:"timeout,omitempty"`

	// RateLimitPolicies are the policies, in precedence order: when several policies share
	// the most specific matching hostname, the first one whose RouteMatches match is used.
	// +optional
	RateLimitPolicies []Policy `json:"rateLimitPolicies,omitempty"`
}

// Policy is one rate-limit policy of a PluginConfig: a set of hostnames and the gateway
// actions that turn a request for one of them into RLS descriptors.
//
// +kubebuilder:object:generate=true
type Policy struct {
	// Name identifies the policy in traces and output, conventionally "namespace/name" of the
	// HTTPRoute it was compiled for. Names MUST be unique within a PluginConfig when set.
	// +optional
	Name string `json:"name,omitempty"`

	// RateLimitDomain is the RLS protocol domain sent with the descriptors. It MUST NOT be
	// empty.
	RateLimitDomain string `json:"rateLimitDomain"`

	// UpstreamCluster is the Envoy cluster of the rate-limit service. It MUST NOT be empty.
	UpstreamCluster string `json:"upstreamCluster"`

	// Hostnames select the policy by the request's Host: exact names, Gateway API wildcards
	// ("*.example.com", matching one or more labels) or "*" for every host. At least one is
	// required.
	Hostnames []string `json:"hostnames"`

	// RouteMatches narrow the policy to requests that match at least one of them, so that
	// routes sharing a hostname stop shadowing each other. Empty means every request for the
	// policy's hostnames. This field is an rlpkit extension of the proposal's schema.
	// +optional
	RouteMatches []RouteMatch `json:"routeMatches,omitempty"`

	// GatewayActions turn a request into descriptors.
	// +optional
	GatewayActions []GatewayAction `json:"gatewayActions,omitempty"`
}

// GatewayAction is a set of rules and the configurations that apply when any rule matches.
//
// +kubebuilder:object:generate=true
type GatewayAction struct {
	// Rules select the requests the configurations apply to: a request matches when at least
	// one rule matches. No rules means every request.
	// +optional
	Rules []Rule `json:"rules,omitempty"`

	// Configurations each yield at most one descriptor.
	// +optional
	Configurations []Configuration `json:"configurations,omitempty"`
}

// Rule matches a request when each of its non-empty fields matches. Within a field, any
// element may match.
//
// +kubebuilder:object:generate=true
type Rule struct {
	// Paths are exact request paths (the query string is ignored), or prefixes when they end
	// in "*" ("/admin/*"). Each MUST start with "/" and MAY contain "*" only at the end.
	// +optional
	Paths []string `json:"paths,omitempty"`

	// Methods are HTTP methods, compared exactly ("GET" does not match "get").
	// +optional
	Methods []string `json:"methods,omitempty"`

	// Hosts are hostnames, exact or "*."-wildcards, compared case-insensitively with the
	// request's Host without its port.
	// +optional
	Hosts []string `json:"hosts,omitempty"`
}

// Configuration is one Envoy rate-limit configuration: its actions append entries to one
// descriptor, in order. If any action cannot append its entry, the configuration yields no
// descriptor at all.
//
// +kubebuilder:object:generate=true
type Configuration struct {
	// Actions build the descriptor's entries. At least one is required.
	Actions []Action `json:"actions"`

	// Limit, when set, reads a RateLimitOverride for the descriptor from dynamic metadata
	// (Envoy's RateLimit.limit). Absent or malformed metadata attaches nothing.
	// +optional
	Limit *LimitOverride `json:"limit,omitempty"`

	// HitsAddend, when set, is the descriptor's cost (Envoy's RateLimit.hits_addend).
	// +optional
	HitsAddend *HitsAddend `json:"hits_addend,omitempty"`
}

// LimitOverride says where a descriptor's limit override comes from. Exactly one source must
// be set; dynamic metadata is the only one Envoy defines.
//
// +kubebuilder:object:generate=true
type LimitOverride struct {
	// DynamicMetadata names a struct {requests_per_unit: number, unit: "SECOND".."YEAR"} in
	// the request's dynamic metadata.
	DynamicMetadata *DynamicMetadataSource `json:"dynamic_metadata,omitempty"`
}

// HitsAddend is a descriptor's cost: a fixed number, a number read from dynamic metadata, or
// a number read from the response body. Exactly one must be set.
//
// +kubebuilder:object:generate=true
type HitsAddend struct {
	// Number is a fixed cost. Zero checks the limit without consuming it.
	// +optional
	Number *uint64 `json:"number,omitempty"`

	// DynamicMetadata names a number in the request's dynamic metadata. A value that is not a
	// non-negative integer counts as 1.
	// +optional
	DynamicMetadata *DynamicMetadataSource `json:"dynamic_metadata,omitempty"`

	// ResponseBody names a number in the response body: the descriptor is sent with the
	// request at cost 0 (checked, not charged) and, once the response has ended, sent again
	// in a second ShouldRateLimit call charging the number read. This field is an rlpkit
	// extension of Envoy's schema (Envoy Gateway's cost.response and kuadrant-operator's
	// ratelimit-report-service action play the same part).
	// +optional
	ResponseBody *ResponseBodySource `json:"response_body,omitempty"`
}

// ResponseBodySource names a number in a JSON response body, or in the last event before
// "data: [DONE]" of a server-sent-events one.
//
// +kubebuilder:object:generate=true
type ResponseBodySource struct {
	// JSONPointer is an RFC 6901 pointer to a non-negative integer ("/usage/total_tokens").
	// It MUST start with "/".
	JSONPointer string `json:"json_pointer"`
}

// DynamicMetadataSource names a value in the request's dynamic metadata.
//
// +kubebuilder:object:generate=true
type DynamicMetadataSource struct {
	// MetadataKey locates the value.
	MetadataKey MetadataKey `json:"metadata_key"`
}

// MetadataKey locates a value in metadata, as Envoy's envoy.type.metadata.v3.MetadataKey:
// Key is the filter namespace ("envoy.filters.http.ext_authz"), Path the keys to walk inside
// its struct.
//
// +kubebuilder:object:generate=true
type MetadataKey struct {
	// Key is the metadata namespace. It MUST NOT be empty.
	Key string `json:"key"`
	// Path is the list of struct keys to follow. At least one segment is required.
	Path []PathSegment `json:"path"`
}

// PathSegment is one step of a MetadataKey path.
//
// +kubebuilder:object:generate=true
type PathSegment struct {
	// Key is a struct field name. It MUST NOT be empty.
	Key string `json:"key"`
}
