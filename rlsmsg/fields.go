package rlsmsg

// Field numbers of the messages of the exchange, from
// envoy/service/ratelimit/v3/rls.proto,
// envoy/extensions/common/ratelimit/v3/ratelimit.proto,
// envoy/config/core/v3/base.proto and google/protobuf's duration.proto and
// wrappers.proto.
const (
	reqDomain      = 1 // string
	reqDescriptors = 2 // repeated RateLimitDescriptor
	reqHitsAddend  = 3 // uint32

	descEntries        = 1 // repeated Entry
	descLimit          = 2 // RateLimitOverride
	descHitsAddend     = 3 // google.protobuf.UInt64Value
	descIsNegativeHits = 4 // bool

	// An Entry and an envoy.config.core.v3.HeaderValue both begin with a
	// key and a value (a HeaderValue's raw_value, 3, is not modelled).
	pairKey   = 1 // string
	pairValue = 2 // string

	overrideRequestsPerUnit = 1 // uint32
	overrideUnit            = 2 // envoy.type.v3.RateLimitUnit
	overrideUnitMultiplier  = 3 // google.protobuf.UInt32Value

	wrapperValue = 1 // the value of a UInt64Value or UInt32Value

	respOverallCode          = 1 // Code
	respStatuses             = 2 // repeated DescriptorStatus
	respResponseHeadersToAdd = 3 // repeated envoy.config.core.v3.HeaderValue
	respRequestHeadersToAdd  = 4 // repeated envoy.config.core.v3.HeaderValue
	respRawBody              = 5 // bytes
	respDynamicMetadata      = 6 // google.protobuf.Struct
	respQuota                = 7 // Quota, not modelled

	statusCode               = 1 // Code
	statusCurrentLimit       = 2 // RateLimit
	statusLimitRemaining     = 3 // uint32
	statusDurationUntilReset = 4 // google.protobuf.Duration
	statusQuota              = 5 // Quota, not modelled

	// A RateLimit begins as a RateLimitOverride does (decodeRate reads both).
	limitRequestsPerUnit = overrideRequestsPerUnit // uint32
	limitUnit            = overrideUnit            // RateLimit.Unit
	limitName            = 3                       // string
	limitUnitMultiplier  = 4                       // google.protobuf.UInt32Value

	durationSeconds = 1 // int64
	durationNanos   = 2 // int32
)
