package rlsmsg

import "time"

// Response is a RateLimitResponse: the service's answer to a Request.
type Response struct {
	// OverallCode is CodeOverLimit when any descriptor is over its limit,
	// else CodeOK.
	OverallCode Code `json:"overall_code"`
	// Statuses has one status per request descriptor, in request order.
	Statuses []Status `json:"statuses"`
	// ResponseHeadersToAdd are headers for the client's response (or the
	// local reply when over the limit).
	ResponseHeadersToAdd []Header `json:"response_headers_to_add,omitempty"`
	// RequestHeadersToAdd are headers for the request sent upstream.
	RequestHeadersToAdd []Header `json:"request_headers_to_add,omitempty"`
	// RawBody is the body of the local reply when over the limit; nil when
	// unset.
	RawBody []byte `json:"raw_body,omitempty"`
	// DynamicMetadata is an encoded google.protobuf.Struct, emitted by the
	// proxy's filter as dynamic metadata; nil when unset.
	DynamicMetadata []byte `json:"dynamic_metadata,omitempty"`
}

// Status is a RateLimitResponse.DescriptorStatus: the answer for one
// descriptor.
type Status struct {
	// Code is the descriptor's decision.
	Code Code `json:"code"`
	// CurrentLimit is the limit that decided; nil when none applied. A
	// server may share it between responses: do not modify it.
	CurrentLimit *RateLimit `json:"current_limit,omitempty"`
	// LimitRemaining is how many more hits CurrentLimit admits now.
	LimitRemaining uint32 `json:"limit_remaining"`
	// DurationUntilReset is how long until CurrentLimit's counter is back
	// to its initial state, when HasDurationUntilReset is set.
	DurationUntilReset time.Duration `json:"duration_until_reset"`
	// HasDurationUntilReset says that DurationUntilReset is set (written
	// on the wire, even when 0).
	HasDurationUntilReset bool `json:"-"`
}

// RateLimit is a RateLimitResponse.RateLimit: a limit as the service
// reports it.
type RateLimit struct {
	// Name is the limit's name, possibly empty.
	Name string `json:"name,omitempty"`
	// RequestsPerUnit is the number of hits the limit admits per Unit.
	RequestsPerUnit uint32 `json:"requests_per_unit"`
	// Unit is the window, UnitUnknown when it is none of Envoy's units.
	Unit Unit `json:"unit"`
	// UnitMultiplier makes the window several units long; 0 when unset
	// (one unit).
	UnitMultiplier uint32 `json:"unit_multiplier,omitempty"`
}

// Header is an envoy.config.core.v3.HeaderValue (its raw_value aside).
type Header struct {
	// Key is the header name.
	Key string `json:"key"`
	// Value is the header value.
	Value string `json:"value"`
}
