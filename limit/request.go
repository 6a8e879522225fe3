package limit

import (
	"fmt"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// RequestCost returns the request's hits_addend, 0 meaning 1.
func RequestCost(req *rlsmsg.Request) uint64 {
	if req.HitsAddend == 0 {
		return 1
	}
	return uint64(req.HitsAddend)
}

// Cost returns what descriptor d of req costs: its own hits_addend when
// set (an explicit 0 checks without consuming), else the request's.
func Cost(req *rlsmsg.Request, d *rlsmsg.Descriptor) uint64 {
	if d.HitsAddend != nil {
		return *d.HitsAddend
	}
	return RequestCost(req)
}

// CheckRequest returns an *InvalidRequestError naming an empty domain and
// every problem check finds in a descriptor (it appends them to problems,
// with field paths), or nil.
func CheckRequest(req *rlsmsg.Request, check func(problems []string, i int, d *rlsmsg.Descriptor) []string) error {
	var problems []string
	if req.Domain == "" {
		problems = append(problems, "domain: empty")
	}
	for i := range req.Descriptors {
		problems = check(problems, i, &req.Descriptors[i])
	}
	return InvalidRequest(problems)
}

// CheckDescriptor returns what no format evaluates in descriptor i, each
// problem with its field path, appended to problems: a refund
// (is_negative_hits: nothing in rlpkit gives hits back) and a limit
// override whose unit is UNKNOWN or outside the enum (Envoy sends such an
// override only when its metadata is wrong; ignoring it would silently
// apply the configured limit instead), or whose unit_multiplier makes a
// window longer than counter.MaxWindow.
func CheckDescriptor(problems []string, i int, d *rlsmsg.Descriptor) []string {
	if d.IsNegativeHits {
		problems = append(problems, fmt.Sprintf("descriptors[%d].is_negative_hits: refunds are not supported", i))
	}
	if d.Limit == nil {
		return problems
	}
	if d.Limit.Unit.Seconds() == 0 {
		return append(problems, fmt.Sprintf("descriptors[%d].limit.unit: %v is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR", i, d.Limit.Unit))
	}
	if m := d.Limit.UnitMultiplier; m != nil {
		if _, ok := Window(d.Limit.Unit, *m); !ok {
			problems = append(problems, fmt.Sprintf("descriptors[%d].limit.unit_multiplier: %d %v windows are longer than the longest window, %d seconds (about 136 years)", i, *m, d.Limit.Unit, counter.MaxWindow/time.Second))
		}
	}
	return problems
}

// Window returns the window of multiplier units of u (0 and 1 meaning
// one), and whether it is at most counter.MaxWindow; a longer one is not
// returned, since it would wrap.
func Window(u rlsmsg.Unit, multiplier uint32) (time.Duration, bool) {
	secs := uint64(u.Seconds()) * uint64(max(multiplier, 1)) // both below 2^32: no overflow
	if secs > uint64(counter.MaxWindow/time.Second) {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
}

// ResetSeconds returns d in whole seconds, rounded up (0 when d is not
// positive): a client that waits the advertised time is never refused for
// having come back early.
func ResetSeconds(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second > 0 {
		s++
	}
	return s
}
