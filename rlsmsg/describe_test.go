package rlsmsg

import "testing"

func TestDescribe(t *testing.T) {
	hits := uint64(2)
	d := Descriptor{Entries: []Entry{{Key: "k", Value: "v"}, {Key: "user", Value: "alice"}},
		Limit: &Override{RequestsPerUnit: 10, Unit: UnitMinute}, HitsAddend: &hits}
	if got, want := d.Describe(), "k=v, user=alice (override 10/MINUTE) (hits_addend 2)"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	if got := (&Descriptor{}).Describe(); got != "" {
		t.Errorf("Describe() of an empty descriptor = %q, want empty", got)
	}
}
