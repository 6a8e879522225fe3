package rlsmsg

import "testing"

func TestUnits(t *testing.T) {
	tests := []struct {
		unit    Unit
		name    string
		seconds uint32
	}{
		{UnitUnknown, "UNKNOWN", 0},
		{UnitSecond, "SECOND", 1},
		{UnitMinute, "MINUTE", 60},
		{UnitHour, "HOUR", 3600},
		{UnitDay, "DAY", 86400},
		{UnitMonth, "MONTH", 2592000},
		{UnitYear, "YEAR", 31536000},
		{UnitWeek, "WEEK", 604800},
		{Unit(8), "Unit(8)", 0},
		{Unit(-1), "Unit(-1)", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.unit.String(); got != tc.name {
				t.Errorf("Unit(%d).String() = %q, want %q", int32(tc.unit), got, tc.name)
			}
			if got := tc.unit.Seconds(); got != tc.seconds {
				t.Errorf("%v.Seconds() = %d, want %d", tc.unit, got, tc.seconds)
			}
			wantForSeconds, wantParse, wantOK := tc.unit, tc.unit, true
			if tc.seconds == 0 {
				wantForSeconds, wantParse, wantOK = UnitUnknown, UnitUnknown, false
			}
			if tc.seconds > 0 {
				if got := UnitForSeconds(tc.seconds); got != wantForSeconds {
					t.Errorf("UnitForSeconds(%d) = %v, want %v", tc.seconds, got, wantForSeconds)
				}
			}
			if got, ok := ParseUnit(tc.name); got != wantParse || ok != wantOK {
				t.Errorf("ParseUnit(%q) = %v, %v, want %v, %v", tc.name, got, ok, wantParse, wantOK)
			}
		})
	}
	for _, s := range []uint32{0, 2, 120, 7 * 86400 * 2} {
		if got := UnitForSeconds(s); got != UnitUnknown {
			t.Errorf("UnitForSeconds(%d) = %v, want UNKNOWN", s, got)
		}
	}
	for _, s := range []string{"", "second", "FORTNIGHT"} {
		if got, ok := ParseUnit(s); ok {
			t.Errorf("ParseUnit(%q) = %v, true, want UNKNOWN, false", s, got)
		}
	}
}

func TestUnitJSON(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Unit
		err  bool
	}{{`"MINUTE"`, UnitMinute, false}, {`"UNKNOWN"`, UnitUnknown, false}, {`2`, UnitMinute, false}, {`"minute"`, 0, true}, {`true`, 0, true}} {
		var u Unit
		err := u.UnmarshalJSON([]byte(tc.in))
		if (err != nil) != tc.err || err == nil && u != tc.want {
			t.Errorf("UnmarshalJSON(%s) = %v, %v; want %v (error %v)", tc.in, u, err, tc.want, tc.err)
		}
	}
	for u := UnitUnknown; u <= UnitWeek; u++ {
		text, _ := u.MarshalText()
		var back Unit
		if err := back.UnmarshalJSON([]byte(`"` + string(text) + `"`)); err != nil || back != u {
			t.Errorf("%v does not round-trip: %v, %v", u, back, err)
		}
	}
}
