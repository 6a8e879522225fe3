package limit

import (
	"github.com/rlpkit/rlpkit/descriptor"
)

// Request is the input of one rate-limit decision: Envoy's RateLimitRequest.
type Request struct {
	// Domain selects the limits whose Namespace equals it. It must not be
	// empty.
	Domain string
	// Descriptors are what the limits read, all of them at once (see
	// Evaluator); the response has one status per descriptor, in this order.
	Descriptors []Descriptor
	// HitsAddend is the cost of each applying limit, unless a descriptor it
	// is reported on has a HitsAddend of its own; 0 means 1.
	HitsAddend uint32
}

// Descriptor is one RLS descriptor: Envoy's RateLimitDescriptor.
type Descriptor struct {
	// Entries are the descriptor's key/value pairs. When a key repeats, the
	// last entry wins, as in a map.
	Entries []Entry
	// Limit, when set to a known unit, limits this descriptor alone; the
	// configured limits do not read its entries (see Evaluator). A nil Limit, or one with
	// UnitUnknown or an out-of-range unit, has no effect.
	Limit *Override
	// HitsAddend, when set, replaces the request's HitsAddend for the limits
	// reported on this descriptor (see Evaluator); an explicit 0 checks
	// them without consuming.
	HitsAddend *uint64
}

// Entry is one descriptor entry.
type Entry struct {
	// Key is the entry's key, such as "remote_address" or "user".
	Key string
	// Value is the entry's value.
	Value string
}

// Override is a per-descriptor limit: Envoy's RateLimitDescriptor.RateLimitOverride.
type Override struct {
	// RequestsPerUnit is the number of hits admitted per Unit.
	RequestsPerUnit uint32
	// Unit is the window; UnitUnknown or a value outside the enum makes the
	// override void.
	Unit descriptor.Unit
}

// lookup returns the value of the last entry with key.
func lookup(entries []Entry, key string) (string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Key == key {
			return entries[i].Value, true
		}
	}
	return "", false
}

// hasOverride reports whether d carries a limit override of a known unit,
// which limits it alone.
func (d *Descriptor) hasOverride() bool {
	return d.Limit != nil && d.Limit.Unit.Seconds() > 0
}
