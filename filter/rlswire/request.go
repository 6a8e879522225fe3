package rlswire

// Request is an envoy.service.ratelimit.v3.RateLimitRequest.
type Request struct {
	// Domain is the rate-limit domain.
	Domain string
	// Descriptors are the descriptors, in order.
	Descriptors []Descriptor
	// HitsAddend is the request's cost; 0 means unset (the service counts 1).
	HitsAddend uint32
}

// Descriptor is an envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.
type Descriptor struct {
	// Entries are the descriptor's entries, in order.
	Entries []Entry
	// Limit is the descriptor's limit override; nil when none.
	Limit *Override
	// HitsAddend is the descriptor's own cost (a google.protobuf.UInt64Value); nil when unset.
	HitsAddend *uint64
}

// Entry is a RateLimitDescriptor.Entry.
type Entry struct {
	// Key is the entry's key.
	Key string
	// Value is the entry's value.
	Value string
}

// Override is a RateLimitDescriptor.RateLimitOverride.
type Override struct {
	// RequestsPerUnit is the limit.
	RequestsPerUnit uint32
	// Unit is an envoy.type.v3.RateLimitUnit (1 SECOND .. 6 YEAR).
	Unit int32
}

// Field numbers of the request messages.
const (
	reqDomain      = 1
	reqDescriptors = 2
	reqHitsAddend  = 3

	descEntries    = 1
	descLimit      = 2
	descHitsAddend = 3

	entryKey   = 1
	entryValue = 2

	overrideRequestsPerUnit = 1
	overrideUnit            = 2

	uint64ValueValue = 1

	grpcServiceEnvoyGrpc = 1
	envoyGrpcClusterName = 1
)

// AppendRequest appends the protobuf encoding of r to b and returns the extended slice.
func AppendRequest(b []byte, r *Request) []byte {
	if r.Domain != "" {
		b = appendStringField(b, reqDomain, r.Domain)
	}
	for i := range r.Descriptors {
		d := &r.Descriptors[i]
		b = appendTag(b, reqDescriptors, wireBytes)
		b = appendVarint(b, uint64(d.size()))
		b = d.append(b)
	}
	if r.HitsAddend != 0 {
		b = appendVarintField(b, reqHitsAddend, uint64(r.HitsAddend))
	}
	return b
}

func (d *Descriptor) size() int {
	n := 0
	for i := range d.Entries {
		n += sizeStringField(descEntries, d.Entries[i].size())
	}
	if d.Limit != nil {
		n += sizeStringField(descLimit, d.Limit.size())
	}
	if d.HitsAddend != nil {
		n += sizeStringField(descHitsAddend, uint64ValueSize(*d.HitsAddend))
	}
	return n
}

func (d *Descriptor) append(b []byte) []byte {
	for i := range d.Entries {
		e := &d.Entries[i]
		b = appendTag(b, descEntries, wireBytes)
		b = appendVarint(b, uint64(e.size()))
		if e.Key != "" {
			b = appendStringField(b, entryKey, e.Key)
		}
		if e.Value != "" {
			b = appendStringField(b, entryValue, e.Value)
		}
	}
	if o := d.Limit; o != nil {
		b = appendTag(b, descLimit, wireBytes)
		b = appendVarint(b, uint64(o.size()))
		if o.RequestsPerUnit != 0 {
			b = appendVarintField(b, overrideRequestsPerUnit, uint64(o.RequestsPerUnit))
		}
		if o.Unit != 0 {
			b = appendVarintField(b, overrideUnit, uint64(int64(o.Unit)))
		}
	}
	if d.HitsAddend != nil {
		v := *d.HitsAddend
		b = appendTag(b, descHitsAddend, wireBytes)
		b = appendVarint(b, uint64(uint64ValueSize(v)))
		if v != 0 {
			b = appendVarintField(b, uint64ValueValue, v)
		}
	}
	return b
}

func (e *Entry) size() int {
	n := 0
	if e.Key != "" {
		n += sizeStringField(entryKey, len(e.Key))
	}
	if e.Value != "" {
		n += sizeStringField(entryValue, len(e.Value))
	}
	return n
}

func (o *Override) size() int {
	n := 0
	if o.RequestsPerUnit != 0 {
		n += sizeVarintField(overrideRequestsPerUnit, uint64(o.RequestsPerUnit))
	}
	if o.Unit != 0 {
		n += sizeVarintField(overrideUnit, uint64(int64(o.Unit)))
	}
	return n
}

func uint64ValueSize(v uint64) int {
	if v == 0 {
		return 0
	}
	return sizeVarintField(uint64ValueValue, v)
}

// AppendGrpcService appends the encoding of an envoy.config.core.v3.GrpcService whose
// envoy_grpc names cluster: what proxy_grpc_call expects as its upstream, so that the host
// never mistakes a cluster name for a serialized GrpcService.
func AppendGrpcService(b []byte, cluster string) []byte {
	inner := 0
	if cluster != "" {
		inner = sizeStringField(envoyGrpcClusterName, len(cluster))
	}
	b = appendTag(b, grpcServiceEnvoyGrpc, wireBytes)
	b = appendVarint(b, uint64(inner))
	if cluster != "" {
		b = appendStringField(b, envoyGrpcClusterName, cluster)
	}
	return b
}
