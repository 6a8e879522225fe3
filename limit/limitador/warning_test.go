package limitador

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

func TestLimitWarnings(t *testing.T) {
	limits := []Limit{
		{Namespace: "d", MaxValue: 1, Seconds: 1, Conditions: []string{"descriptors[0]['req.method'] == 'GET'"}},
		{Namespace: "d", MaxValue: 1, Seconds: 2,
			Conditions: []string{"method == 'GET'", "descriptors[0].req.method == 'GET' || descriptors[1].auth.identity.user == 'x'"},
			Variables:  []string{"user", "descriptors[0].source.address"}},
		{Namespace: "d", MaxValue: 1, Seconds: 3, Conditions: []string{"descriptors[0].x.y"}}, // not a bool: an error, no warning
	}
	got := LimitWarnings(limits)
	want := []Warning{
		{Path: "[1].conditions[1]", Message: "descriptors[0].req.method, descriptors[1].auth.identity.user can never match: an entry's value is a string and has no fields; for a key with dots write descriptors[0]['req.method'], descriptors[1]['auth.identity.user']"},
		{Path: "[1].variables[1]", Message: "descriptors[0].source.address can never match: an entry's value is a string and has no fields; for a key with dots write descriptors[0]['source.address']"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LimitWarnings mismatch (-want +got):\n%s", diff)
	}
	if err := ValidateLimits(limits[:2]); err != nil {
		t.Errorf("ValidateLimits(limits with warnings) = %v, want nil: they load", err)
	}
	if err := ValidateLimits(limits[2:]); err == nil {
		t.Errorf("ValidateLimits(%q) = nil, want an error: it is not a bool", limits[2].Conditions[0])
	}
	if s := got[0].String(); s != "[1].conditions[1]: "+want[0].Message {
		t.Errorf("Warning.String() = %q", s)
	}
}

func TestConditionWarning(t *testing.T) {
	tests := []struct {
		src  string
		want string
	}{
		{"descriptors[0]['req.method'] == 'GET'", ""},
		{"descriptors[0].req == 'GET'", ""},
		{"req.method == 'GET'", ""}, // the legacy form reads the key req.method
		{"has(descriptors[0].req.method)", "descriptors[0].req.method can never match: an entry's value is a string and has no fields; for a key with dots write descriptors[0]['req.method']"},
		{"descriptors[size(descriptors) - 1].a.b == 'c'", "descriptors[...].a.b can never match: an entry's value is a string and has no fields; for a key with dots write descriptors[...]['a.b']"},
	}
	for _, tc := range tests {
		c, err := ParseCondition(tc.src)
		if err != nil {
			t.Fatalf("ParseCondition(%q) = %v, want it to load", tc.src, err)
		}
		if got := c.Warning(); got != tc.want {
			t.Errorf("ParseCondition(%q).Warning() = %q, want %q", tc.src, got, tc.want)
		}
		if tc.want != "" && c.Holds(rlsmsg.Descriptor{Entries: entries("req.method", "GET", "req", "GET", "a.b", "c", "a", "b")}) {
			t.Errorf("ParseCondition(%q).Holds() = true, want false: it never matches", tc.src)
		}
	}
}
