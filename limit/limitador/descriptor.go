package limitador

import "github.com/rlpkit/rlpkit/rlsmsg"

// Request is the input of one rate-limit decision: the RLS model's request.
type Request = rlsmsg.Request

// Descriptor is one RLS descriptor.
type Descriptor = rlsmsg.Descriptor

// Entry is one descriptor entry.
type Entry = rlsmsg.Entry

// Override is a per-descriptor limit.
type Override = rlsmsg.Override

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
func hasOverride(d *Descriptor) bool {
	return d.Limit != nil && d.Limit.Unit.Seconds() > 0
}
