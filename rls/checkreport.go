package rls

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// ReservedEntry is the descriptor entry key by which a Report in
// ModeReserve names the reservation it settles: the hits its check
// reserved, a whole number. Without it the report settles
// CheckReport.DefaultEstimate, what a check reserves when its hits_addend
// is 0.
const ReservedEntry = "rlpkit.reserved"

// Mode is how CheckRateLimit and Report count.
type Mode uint8

const (
	// ModeLimitador counts as Limitador 2.4 does: CheckRateLimit is over
	// when some counter's value plus one exceeds its max and charges
	// nothing, whatever hits_addend says; Report adds hits_addend (0
	// counting as 1) to every counter the request applies to, without
	// checking, and always answers OK. Concurrent requests all pass their
	// checks before any reports: a budget is overshot by everything in
	// flight.
	ModeLimitador Mode = iota
	// ModeReserve makes a check reserve an estimate: CheckRateLimit
	// consumes hits_addend (0: CheckReport.DefaultEstimate), all or
	// nothing, as ShouldRateLimit does, and is over when that does not
	// fit; Report settles the reservation to the actual usage by adding
	// hits_addend (0 counting as 1) minus the reservation (ReservedEntry,
	// else DefaultEstimate), which gives back what was not used. A
	// reservation whose report never comes expires with its window.
	//
	// A give-back never takes a counter below zero and, with MaxInFlight,
	// comes only from a window that began MaxInFlight before the report,
	// so never from a window the reservation was not counted in. Then, per
	// window and counter, the usage admitted is at most the max plus the
	// sum of the admitted requests' overruns (usage minus reservation,
	// where positive): exactly the budget when estimates are true maxima.
	ModeReserve
)

// String returns "limitador" or "reserve", the values of `rlpkit serve
// --check-report`.
func (m Mode) String() string {
	if m == ModeReserve {
		return "reserve"
	}
	return "limitador"
}

// ParseMode returns the Mode named s ("limitador" or "reserve").
func ParseMode(s string) (Mode, error) {
	switch s {
	case "limitador":
		return ModeLimitador, nil
	case "reserve":
		return ModeReserve, nil
	}
	return 0, fmt.Errorf("unknown check and report mode %q (want limitador or reserve)", s)
}

// CheckReport configures kuadrant.service.ratelimit.v1.RateLimitService
// (RegisterKuadrant). The zero value is Limitador's semantics.
type CheckReport struct {
	// Mode is how checks and reports count.
	Mode Mode
	// DefaultEstimate is what a check reserves in ModeReserve when its
	// hits_addend is 0 (the request declared no maximum), and what a
	// report without ReservedEntry settles; 0 means 1.
	DefaultEstimate uint32
	// MaxInFlight bounds, in ModeReserve, how long a request may take
	// between its check and its report; a report gives back unused hits
	// only from a counter whose window began at least MaxInFlight before
	// it, so that hits are never given back from a window their
	// reservation was not counted in (a window that began later cannot
	// hold the reservation). 0 means no bound: every report gives back,
	// which over-admits when a request straddles a window's end.
	MaxInFlight time.Duration
}

// CheckReportEvaluator is an evaluator that answers CheckRateLimit and
// Report: limitador.Evaluator.
type CheckReportEvaluator interface {
	limit.Evaluator
	// Probe decides as if hits were added to every counter, consuming
	// nothing.
	Probe(ctx context.Context, now time.Time, req *rlsmsg.Request, res *limit.Result, hits uint64) error
	// Charge adds delta hits to every counter, without deciding; a
	// negative delta gives back only from windows that began at or before
	// releaseBefore (zero: no bound), never below zero.
	Charge(ctx context.Context, now time.Time, req *rlsmsg.Request, res *limit.Result, delta int64, releaseBefore time.Time) error
}

// ErrNoCheckReport is the error of a CheckRateLimit or Report call when the
// configuration in force has no check and report (envoyproxy/ratelimit's
// format): the call answers Unimplemented.
var ErrNoCheckReport = errors.New("the configuration in force does not answer CheckRateLimit and Report (only Limitador-style limits do)")

// checkReport answers c, a CheckRateLimit or Report call, with e.
func (s *Service) checkReport(ctx context.Context, e limit.Evaluator, c *call) error {
	cr, ok := e.(CheckReportEvaluator)
	if !ok {
		return ErrNoCheckReport
	}
	defer func() { c.res.Statuses = c.res.Statuses[:0] }() // Limitador answers the overall code alone
	if c.req.Domain == "" {
		c.res.OverallCode = rlsmsg.CodeUnknown
		return nil
	}
	now := s.opts.Clock()
	o := &s.opts.CheckReport
	estimate := uint64(max(o.DefaultEstimate, 1))
	switch {
	case c.method == methodCheck && o.Mode == ModeReserve:
		if c.req.HitsAddend == 0 {
			c.req.HitsAddend = uint32(estimate)
		}
		return cr.Evaluate(ctx, now, &c.req, &c.res)
	case c.method == methodCheck:
		return cr.Probe(ctx, now, &c.req, &c.res, 1)
	}
	delta := int64(limit.RequestCost(&c.req))
	var releaseBefore time.Time
	if o.Mode == ModeReserve {
		reserved, err := reservedHits(&c.req, estimate)
		if err != nil {
			return err
		}
		delta -= int64(reserved)
		if o.MaxInFlight > 0 {
			releaseBefore = now.Add(-o.MaxInFlight)
		}
	}
	if err := cr.Charge(ctx, now, &c.req, &c.res, delta, releaseBefore); err != nil {
		return err
	}
	for j := range c.res.Counters { // what metrics count: the usage reported
		c.res.Counters[j].Cost = limit.RequestCost(&c.req)
	}
	c.res.OverallCode = rlsmsg.CodeOK
	return nil
}

// reservedHits returns the reservation a report settles: its
// ReservedEntry (the first one), else def.
func reservedHits(req *rlsmsg.Request, def uint64) (uint64, error) {
	for i := range req.Descriptors {
		for j, en := range req.Descriptors[i].Entries {
			if en.Key != ReservedEntry {
				continue
			}
			n, err := strconv.ParseUint(en.Value, 10, 32)
			if err != nil {
				return 0, &limit.InvalidRequestError{Problems: []string{
					fmt.Sprintf("descriptors[%d].entries[%d].value: %s %q is not a whole number of hits below 2^32", i, j, ReservedEntry, en.Value)}}
			}
			return n, nil
		}
	}
	return def, nil
}
