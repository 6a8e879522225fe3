package egv1alpha1

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// RateLimitSpec is a policy's rate limits: global ones (counted by the rate-limit service,
// envoyproxy/ratelimit), local ones (token buckets in each Envoy), or both.
type RateLimitSpec struct {
	// Type is Global or Local: which of Global and Local is read. Deprecated: set Global
	// and Local directly; unset, both are read.
	// +optional
	Type *RateLimitType `json:"type,omitempty"`
	// Global is the rate limits counted by the rate-limit service.
	// +optional
	Global *GlobalRateLimit `json:"global,omitempty"`
	// Local is the rate limits counted by each Envoy.
	// +optional
	Local *LocalRateLimit `json:"local,omitempty"`
}

// RateLimitType is Global or Local.
type RateLimitType string

// The rate-limit types.
const (
	// GlobalRateLimitType reads RateLimitSpec.Global only.
	GlobalRateLimitType RateLimitType = "Global"
	// LocalRateLimitType reads RateLimitSpec.Local only.
	LocalRateLimitType RateLimitType = "Local"
)

// GlobalRateLimit is the rules the rate-limit service counts. A request matching several
// rules counts on each; it is limited when any is over.
type GlobalRateLimit struct {
	// Rules are at most 256.
	Rules []RateLimitRule `json:"rules"`
}

// LocalRateLimit is the rules each Envoy counts in token buckets. The first rule without
// clientSelectors is the route's default bucket (one of uint32 max tokens per second when
// there is none); every rule's unit must be a multiple of the default's.
type LocalRateLimit struct {
	// Rules are at most 16; none has a response cost or a limit from metadata.
	// +optional
	Rules []RateLimitRule `json:"rules,omitempty"`
}

// RateLimitRule is one limit and the requests it counts.
type RateLimitRule struct {
	// ClientSelectors select the requests the rule counts: all of a selector's conditions
	// must hold. None counts every request of the route. At most 8.
	// +optional
	ClientSelectors []RateLimitSelectCondition `json:"clientSelectors,omitempty"`
	// Limit is the rule's limit.
	Limit RateLimitValue `json:"limit"`
	// Cost is what a request and its response cost; unset, a request costs 1 and its
	// response nothing.
	// +optional
	Cost *RateLimitCost `json:"cost,omitempty"`
	// Shared makes one counter for every target of the policy (a domain of the policy's
	// own) instead of one per route.
	// +optional
	Shared *bool `json:"shared,omitempty"`
	// ShadowMode counts without limiting (global rules only).
	// +optional
	ShadowMode *bool `json:"shadowMode,omitempty"`
	// XRateLimitHeaders is Off or DraftVersion03: whether X-RateLimit headers are sent for
	// the rule; unset, the listener's setting.
	// +optional
	XRateLimitHeaders *XRateLimitHeadersOption `json:"xRateLimitHeaders,omitempty"`
}

// XRateLimitHeadersOption is Off or DraftVersion03.
type XRateLimitHeadersOption string

// The X-RateLimit header options.
const (
	// XRateLimitHeadersOff sends no X-RateLimit headers for the rule.
	XRateLimitHeadersOff XRateLimitHeadersOption = "Off"
	// XRateLimitHeadersDraftVersion03 sends them, as draft 03 of the IETF proposal.
	XRateLimitHeadersDraftVersion03 XRateLimitHeadersOption = "DraftVersion03"
)

// RateLimitCost is what a request and its response cost.
type RateLimitCost struct {
	// Request is taken when the request is checked; unset, 1.
	// +optional
	Request *RateLimitCostSpecifier `json:"request,omitempty"`
	// Response is taken when the response is done, after the request was let through, so
	// it limits the next requests (global rules only).
	// +optional
	Response *RateLimitCostSpecifier `json:"response,omitempty"`
}

// RateLimitCostSpecifier is a cost: a number, or a number read from dynamic metadata.
// Number and Metadata are exclusive.
type RateLimitCostSpecifier struct {
	// From is Number or Metadata.
	From RateLimitCostFrom `json:"from"`
	// Number is a fixed cost; 0 checks without counting.
	// +optional
	Number *uint64 `json:"number,omitempty"`
	// Metadata names the dynamic metadata holding the cost.
	// +optional
	Metadata *RateLimitCostMetadata `json:"metadata,omitempty"`
}

// RateLimitCostFrom is Number or Metadata.
type RateLimitCostFrom string

// Where a cost comes from.
const (
	// RateLimitCostFromNumber is RateLimitCostSpecifier.Number.
	RateLimitCostFromNumber RateLimitCostFrom = "Number"
	// RateLimitCostFromMetadata is RateLimitCostSpecifier.Metadata.
	RateLimitCostFromMetadata RateLimitCostFrom = "Metadata"
)

// RateLimitCostMetadata names a number in the request's dynamic metadata.
type RateLimitCostMetadata struct {
	// Namespace is the metadata namespace (a filter's name).
	Namespace string `json:"namespace"`
	// Key is the key in that namespace.
	Key string `json:"key"`
}

// RateLimitSelectCondition selects requests: each condition set must hold. At least one
// must be set.
type RateLimitSelectCondition struct {
	// Headers must all match; at most 128.
	// +optional
	Headers []HeaderMatch `json:"headers,omitempty"`
	// Methods: any may match.
	// +optional
	Methods []MethodMatch `json:"methods,omitempty"`
	// Path must match.
	// +optional
	Path *PathMatch `json:"path,omitempty"`
	// SourceCIDR must hold the client address.
	// +optional
	SourceCIDR *SourceMatch `json:"sourceCIDR,omitempty"`
	// QueryParams must all match; at most 16.
	// +optional
	QueryParams []QueryParamMatch `json:"queryParams,omitempty"`
}

// HeaderMatchType is Exact, RegularExpression or Distinct.
type HeaderMatchType string

// The header and query-parameter match types.
const (
	// HeaderMatchExact matches the value exactly.
	HeaderMatchExact HeaderMatchType = "Exact"
	// HeaderMatchRegularExpression matches an RE2 expression against the whole value.
	HeaderMatchRegularExpression HeaderMatchType = "RegularExpression"
	// HeaderMatchDistinct counts every value on its own counter; it takes no value.
	HeaderMatchDistinct HeaderMatchType = "Distinct"
)

// HeaderMatch matches a request header.
type HeaderMatch struct {
	// Type defaults to Exact.
	// +optional
	Type *HeaderMatchType `json:"type,omitempty"`
	// Name is the header's name, compared case-insensitively.
	Name string `json:"name"`
	// Value is what Exact and RegularExpression compare; unset with Distinct.
	// +optional
	Value *string `json:"value,omitempty"`
	// Invert matches the requests the match does not (not with Distinct).
	// +optional
	Invert *bool `json:"invert,omitempty"`
}

// MatchType returns Type, or its default Exact.
func (h *HeaderMatch) MatchType() HeaderMatchType {
	if h.Type == nil {
		return HeaderMatchExact
	}
	return *h.Type
}

// QueryParamMatch matches a query parameter, as HeaderMatch a header.
type QueryParamMatch struct {
	// Type defaults to Exact.
	// +optional
	Type *HeaderMatchType `json:"type,omitempty"`
	// Name is the parameter's name.
	Name string `json:"name"`
	// Value is what Exact and RegularExpression compare; unset with Distinct.
	// +optional
	Value *string `json:"value,omitempty"`
	// Invert matches the requests the match does not (not with Distinct).
	// +optional
	Invert *bool `json:"invert,omitempty"`
}

// MatchType returns Type, or its default Exact.
func (q *QueryParamMatch) MatchType() HeaderMatchType {
	if q.Type == nil {
		return HeaderMatchExact
	}
	return *q.Type
}

// MethodMatch matches the request method.
type MethodMatch struct {
	// Value is an HTTP method in upper case.
	Value gatewayv1.HTTPMethod `json:"value"`
	// Invert matches the other methods.
	// +optional
	Invert *bool `json:"invert,omitempty"`
}

// PathMatch matches the request path.
type PathMatch struct {
	// Type is Exact, PathPrefix (default) or RegularExpression.
	// +optional
	Type *gatewayv1.PathMatchType `json:"type,omitempty"`
	// Value is the path; default "/".
	Value string `json:"value"`
	// Invert matches the other paths.
	// +optional
	Invert *bool `json:"invert,omitempty"`
}

// MatchType returns Type, or its default PathPrefix.
func (p *PathMatch) MatchType() gatewayv1.PathMatchType {
	if p.Type == nil {
		return gatewayv1.PathMatchPathPrefix
	}
	return *p.Type
}

// SourceMatchType is Exact or Distinct.
type SourceMatchType string

// The source match types.
const (
	// SourceMatchExact counts every address of the range on one counter.
	SourceMatchExact SourceMatchType = "Exact"
	// SourceMatchDistinct counts every address of the range on its own counter.
	SourceMatchDistinct SourceMatchType = "Distinct"
)

// SourceMatch matches the client address against a CIDR range.
type SourceMatch struct {
	// Type defaults to Exact.
	// +optional
	Type *SourceMatchType `json:"type,omitempty"`
	// Value is a CIDR, IPv4 or IPv6: 192.168.0.0/24, 2001:db8::/64.
	Value string `json:"value"`
	// Invert matches the addresses outside the range.
	// +optional
	Invert *bool `json:"invert,omitempty"`
}

// MatchType returns Type, or its default Exact.
func (s *SourceMatch) MatchType() SourceMatchType {
	if s.Type == nil {
		return SourceMatchExact
	}
	return *s.Type
}

// RateLimitValue is a limit: Requests per Unit.
type RateLimitValue struct {
	// Requests is how many requests (or cost units) a Unit admits, at most 4294967295.
	Requests uint32 `json:"requests"`
	// Unit is Second, Minute, Hour, Day, Week, Month or Year.
	Unit RateLimitUnit `json:"unit"`
	// FromMetadata reads the limit of each request from dynamic metadata, a struct
	// {requests_per_unit, unit} an earlier filter wrote; without it, Requests per Unit
	// (global rules only).
	// +optional
	FromMetadata *RateLimitValueMetadata `json:"fromMetadata,omitempty"`
}

// RateLimitValueMetadata names the dynamic metadata holding a request's limit.
type RateLimitValueMetadata struct {
	// Namespace is the metadata namespace.
	Namespace string `json:"namespace"`
	// Key is the key of the struct in that namespace.
	Key string `json:"key"`
}

// RateLimitUnit is Second, Minute, Hour, Day, Week, Month or Year.
type RateLimitUnit string

// The units.
const (
	RateLimitUnitSecond RateLimitUnit = "Second"
	RateLimitUnitMinute RateLimitUnit = "Minute"
	RateLimitUnitHour   RateLimitUnit = "Hour"
	RateLimitUnitDay    RateLimitUnit = "Day"
	RateLimitUnitWeek   RateLimitUnit = "Week"
	RateLimitUnitMonth  RateLimitUnit = "Month"
	RateLimitUnitYear   RateLimitUnit = "Year"
)

// Units are the units, shortest first.
var Units = []RateLimitUnit{RateLimitUnitSecond, RateLimitUnitMinute, RateLimitUnitHour, RateLimitUnitDay, RateLimitUnitWeek, RateLimitUnitMonth, RateLimitUnitYear}

// Seconds returns the unit's length in seconds as Envoy Gateway counts them (a month is 30
// days, a year 365), 0 for an unknown unit.
func (u RateLimitUnit) Seconds() int64 {
	switch u {
	case RateLimitUnitSecond:
		return 1
	case RateLimitUnitMinute:
		return 60
	case RateLimitUnitHour:
		return 3600
	case RateLimitUnitDay:
		return 86400
	case RateLimitUnitWeek:
		return 7 * 86400
	case RateLimitUnitMonth:
		return 30 * 86400
	case RateLimitUnitYear:
		return 365 * 86400
	}
	return 0
}
