package limitador

import "github.com/rlpkit/rlpkit/rlsmsg"

// lookup returns the value of the last entry with key.
func lookup(entries []rlsmsg.Entry, key string) (string, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Key == key {
			return entries[i].Value, true
		}
	}
	return "", false
}

// hasOverride reports whether d carries a limit override of a known unit,
// which limits it alone.
func hasOverride(d *rlsmsg.Descriptor) bool {
	return d.Limit != nil && d.Limit.Unit.Seconds() > 0
}
