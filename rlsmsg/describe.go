package rlsmsg

import (
	"strconv"
	"strings"
)

// Describe writes d for traces and test reports, as one line:
// "k=v, k=v (override 10/MINUTE) (hits_addend 2)".
func (d *Descriptor) Describe() string {
	var b strings.Builder
	for i, e := range d.Entries {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(e.Key + "=" + e.Value)
	}
	if d.Limit != nil {
		b.WriteString(" (override " + strconv.FormatUint(uint64(d.Limit.RequestsPerUnit), 10) + "/" + d.Limit.Unit.String() + ")")
	}
	if d.HitsAddend != nil {
		b.WriteString(" (hits_addend " + strconv.FormatUint(*d.HitsAddend, 10) + ")")
	}
	return b.String()
}
