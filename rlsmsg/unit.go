package rlsmsg

import (
	"fmt"
	"strconv"
)

// Unit is a rate-limit time unit, the one definition rlpkit uses for limit
// overrides (Envoy's envoy.type.v3.RateLimitUnit) and for the limits a
// rate-limit service reports (RateLimitResponse.RateLimit.Unit): names and
// numbers match Envoy's. The zero value is UnitUnknown.
type Unit int32

const (
	// UnitUnknown is a window that is none of the units below.
	UnitUnknown Unit = 0
	// UnitSecond is 1 second.
	UnitSecond Unit = 1
	// UnitMinute is 60 seconds.
	UnitMinute Unit = 2
	// UnitHour is 3,600 seconds.
	UnitHour Unit = 3
	// UnitDay is 86,400 seconds.
	UnitDay Unit = 4
	// UnitMonth is 30 days (2,592,000 seconds), as Envoy's reference
	// service counts it.
	UnitMonth Unit = 5
	// UnitYear is 365 days (31,536,000 seconds).
	UnitYear Unit = 6
	// UnitWeek is 7 days (604,800 seconds). Envoy added WEEK after YEAR to
	// RateLimitResponse.RateLimit.Unit only: envoy.type.v3.RateLimitUnit,
	// the unit of an override, has no WEEK, so an override read from
	// dynamic metadata never has it.
	UnitWeek Unit = 7
)

var unitNames = [...]string{"UNKNOWN", "SECOND", "MINUTE", "HOUR", "DAY", "MONTH", "YEAR", "WEEK"}

var unitSeconds = [...]uint32{0, 1, 60, 3600, 86400, 30 * 86400, 365 * 86400, 7 * 86400}

// String returns Envoy's name of u: UNKNOWN, SECOND, MINUTE, HOUR, DAY, MONTH,
// YEAR or WEEK, and "Unit(N)" for values outside the enum.
func (u Unit) String() string { return enumName(unitNames[:], int64(u), "Unit") }

// MarshalText encodes the unit by name.
func (u Unit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalJSON decodes a unit written by name, as MarshalText writes it ("MINUTE",
// "UNKNOWN"), or as its number.
func (u *Unit) UnmarshalJSON(b []byte) error {
	if s, err := strconv.Unquote(string(b)); err == nil {
		if s == unitNames[UnitUnknown] {
			*u = UnitUnknown
			return nil
		}
		v, ok := ParseUnit(s)
		if !ok {
			return fmt.Errorf("unknown rate limit unit %q: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR", s)
		}
		*u = v
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("rate limit unit %s: want a unit name or number", b)
	}
	*u = Unit(n)
	return nil
}

// Seconds returns the length of u in seconds, or 0 for UnitUnknown and values
// outside the enum.
func (u Unit) Seconds() uint32 {
	if u >= 0 && int(u) < len(unitSeconds) {
		return unitSeconds[u]
	}
	return 0
}

// UnitForSeconds returns the unit whose length is exactly seconds, or
// UnitUnknown.
func UnitForSeconds(seconds uint32) Unit {
	for u, s := range unitSeconds {
		if u > 0 && s == seconds {
			return Unit(u)
		}
	}
	return UnitUnknown
}

// ParseUnit returns the unit with Envoy name s (upper case: SECOND, MINUTE,
// HOUR, DAY, WEEK, MONTH or YEAR). UNKNOWN is not a usable unit and is
// refused, like any other name.
func ParseUnit(s string) (Unit, bool) {
	for u := UnitSecond; int(u) < len(unitNames); u++ {
		if unitNames[u] == s {
			return u, true
		}
	}
	return UnitUnknown, false
}
