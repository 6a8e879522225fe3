package envoyratelimit

import (
	"context"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Short names of the model for the tests.
type (
	Request      = rlsmsg.Request
	Descriptor   = rlsmsg.Descriptor
	Entry        = rlsmsg.Entry
	Override     = rlsmsg.Override
	Status       = rlsmsg.Status
	CurrentLimit = rlsmsg.RateLimit
	Code         = rlsmsg.Code
	Unit         = rlsmsg.Unit
	Response     = limit.Result
)

const (
	CodeOK        = rlsmsg.CodeOK
	CodeOverLimit = rlsmsg.CodeOverLimit
	UnitUnknown   = rlsmsg.UnitUnknown
	UnitSecond    = rlsmsg.UnitSecond
	UnitMinute    = rlsmsg.UnitMinute
	UnitHour      = rlsmsg.UnitHour
	UnitDay       = rlsmsg.UnitDay
	UnitMonth     = rlsmsg.UnitMonth
	UnitYear      = rlsmsg.UnitYear
	UnitWeek      = rlsmsg.UnitWeek
)

// evaluate evaluates r with ev's options over cfg at now.
func evaluate(ev *Evaluator, cfg *Config, now time.Time, r *Request) (*Response, error) {
	res := new(Response)
	if err := ev.WithConfig(cfg).Evaluate(context.Background(), now, r, res); err != nil {
		return nil, err
	}
	return res, nil
}

func u64(v uint64) *uint64 { return &v }
