package limit

import (
	"fmt"
	"time"

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

// CheckDescriptor returns what no format evaluates in descriptor i, each
// problem with its field path, appended to problems: a refund
// (is_negative_hits: nothing in rlpkit gives hits back) and a limit
// override whose unit is UNKNOWN or outside the enum (Envoy sends such an
// override only when its metadata is wrong; ignoring it would silently
// apply the configured limit instead).
func CheckDescriptor(problems []string, i int, d *rlsmsg.Descriptor) []string {
	if d.IsNegativeHits {
		problems = append(problems, fmt.Sprintf("descriptors[%d].is_negative_hits: refunds are not supported", i))
	}
	if d.Limit != nil && d.Limit.Unit.Seconds() == 0 {
		problems = append(problems, fmt.Sprintf("descriptors[%d].limit.unit: %v is not a unit: want SECOND, MINUTE, HOUR, DAY, WEEK, MONTH or YEAR", i, d.Limit.Unit))
	}
	return problems
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
