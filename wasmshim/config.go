package wasmshim

// The service types of wasm-shim v0.14.
const (
	ServiceAuth            = "auth"
	ServiceRateLimit       = "ratelimit"
	ServiceRateLimitCheck  = "ratelimit-check"
	ServiceRateLimitReport = "ratelimit-report"
)

// The failure modes of a service: what wasm-shim does when the service cannot answer.
const (
	FailureModeDeny  = "deny"
	FailureModeAllow = "allow"
)

// Config is wasm-shim v0.14's plugin configuration: the services it calls and the action
// sets that say when it calls them and with what.
type Config struct {
	// Services are the services actions call, by name.
	Services map[string]Service `json:"services"`
	// ActionSets are tried in order for the request's most specific hostname.
	ActionSets []ActionSet `json:"actionSets"`
}

// Service is a service wasm-shim calls.
type Service struct {
	// Type is ServiceAuth, ServiceRateLimit, ServiceRateLimitCheck or ServiceRateLimitReport.
	Type string `json:"type"`
	// Endpoint is the Envoy cluster of the service.
	Endpoint string `json:"endpoint"`
	// FailureMode is FailureModeDeny or FailureModeAllow.
	FailureMode string `json:"failureMode"`
	// Timeout is the call's timeout as a duration ("100ms"); empty is wasm-shim's default.
	Timeout string `json:"timeout,omitempty"`
}

// ActionSet is the actions of one route match on one hostname.
type ActionSet struct {
	// Name identifies the action set (the operator writes a hex SHA-256).
	Name string `json:"name"`
	// RouteRuleConditions say which requests the action set is for.
	RouteRuleConditions RouteRuleConditions `json:"routeRuleConditions"`
	// Actions run in order when the action set applies.
	Actions []Action `json:"actions,omitempty"`
}

// RouteRuleConditions are an action set's hostnames and the predicates that must all hold.
type RouteRuleConditions struct {
	// Hostnames are exact or wildcard ("*.example.com", "*") hostnames.
	Hostnames []string `json:"hostnames"`
	// Predicates are CEL expressions; all must hold.
	Predicates []string `json:"predicates,omitempty"`
}

// Action calls one service when its predicates hold and some conditionalData block applies.
type Action struct {
	// Service names an entry of Config.Services.
	Service string `json:"service"`
	// Scope is the rate-limit domain (the operator writes "route-ns/route-name").
	Scope string `json:"scope"`
	// Predicates are CEL expressions; all must hold for the action to run.
	Predicates []string `json:"predicates,omitempty"`
	// ConditionalData are blocks of descriptor entries, each with its own predicates.
	ConditionalData []ConditionalData `json:"conditionalData,omitempty"`
	// Sources are the policies the action comes from ("ratelimitpolicy.kuadrant.io:ns/name").
	Sources []string `json:"sources,omitempty"`
}

// ConditionalData is descriptor entries added when its predicates all hold.
type ConditionalData struct {
	// Predicates are CEL expressions; all must hold (none: always).
	Predicates []string `json:"predicates,omitempty"`
	// Data are the entries, in order.
	Data []DataItem `json:"data,omitempty"`
}

// DataItem is one descriptor entry: a static value or a CEL expression. Exactly one is set.
type DataItem struct {
	// Static is an entry with a literal value.
	Static *StaticData `json:"static,omitempty"`
	// Expression is an entry whose value is a CEL expression's value as a string.
	Expression *ExpressionData `json:"expression,omitempty"`
}

// StaticData is an entry with a literal value.
type StaticData struct {
	// Key is the entry's key.
	Key string `json:"key"`
	// Value is its value.
	Value string `json:"value"`
}

// ExpressionData is an entry whose value is computed.
type ExpressionData struct {
	// Key is the entry's key.
	Key string `json:"key"`
	// Value is a CEL expression; the entry's value is string() of its result.
	Value string `json:"value"`
}
