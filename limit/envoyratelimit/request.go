package envoyratelimit

import "time"

// Request is an Envoy rate limit request in the terms of this package.
type Request struct {
	// Domain selects the configuration; it must not be empty.
	Domain string
	// Descriptors are evaluated in order; there must be at least one.
	Descriptors []Descriptor
	// HitsAddend is the request's cost for descriptors without their own;
	// 0 means 1.
	HitsAddend uint64
}

// Descriptor is one request descriptor.
type Descriptor struct {
	// Entries are the descriptor's key/value pairs.
	Entries []Entry
	// Override, when set, replaces whatever the configuration says for the
	// descriptor (ignored in a domain that has no configuration).
	Override *Override
	// HitsAddend is the descriptor's own cost when HasHitsAddend is set; 0
	// then checks without consuming.
	HitsAddend    uint64
	HasHitsAddend bool
}

// Override is a limit carried by the request.
type Override struct {
	RequestsPerUnit uint32
	Unit            Unit
	// UnitMultiplier makes the window several units long; 0 means 1.
	UnitMultiplier uint32
}

// Code is a status code, numbered as Envoy's protocol.
type Code int32

// The codes.
const (
	CodeUnknown   Code = 0
	CodeOK        Code = 1
	CodeOverLimit Code = 2
)

// CurrentLimit is the limit reported in a status.
type CurrentLimit struct {
	Name            string
	RequestsPerUnit uint32
	Unit            Unit
	// UnitMultiplier is more than 1 only for the unit_multiplier extension.
	UnitMultiplier uint32
}

// Status is the answer for one descriptor.
type Status struct {
	Code Code
	// Limit is nil when no limit applies.
	Limit *CurrentLimit
	// Remaining is limit_remaining.
	Remaining uint32
	// ResetAfter is duration_until_reset, in whole seconds (0 without a
	// limit).
	ResetAfter time.Duration
}

// Response is the answer to a Request.
type Response struct {
	Code     Code
	Statuses []Status
	// ShadowedOverLimit is set when Options.ShadowMode turned an over-limit
	// answer into OK (the reference's global_shadow_mode statistic).
	ShadowedOverLimit bool
}
