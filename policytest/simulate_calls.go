package policytest

import (
	"context"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// replayCalls replays one request against a target whose Frontend makes several calls: a
// limit applied when a call's answer counted on it (an envoyproxy/ratelimit configuration
// lists its counters) or, for Limitador limits, when its probe was asked; it limited the
// request when it was over on a descriptor.
func (s *Simulator) replayCalls(e *LogEntry) (Decision, error) {
	s.now = e.Time
	calls, done := s.calls.Calls(&s.in, nil)
	s.callDescs = flattenCalls(calls)
	clear(s.applied)
	var perr error
	mark := func(c *Call, res *limit.Result) {
		if err := s.mark(&c.Request, res); err != nil && perr == nil {
			perr = err
		}
	}
	d, err := s.target.sendCalls(context.Background(), e.Time, s.ev, calls, done, &s.resp, s.statuses, mark)
	s.statuses = d.Statuses[:0]
	if err == nil {
		err = perr
	}
	if err != nil {
		return Decision{}, err
	}
	sec := e.Time.Unix()
	for i, a := range s.applied {
		if a > 0 {
			s.count(i, sec, e, d.Code == rlsmsg.CodeOK, a == 2)
		}
	}
	return d, nil
}

// mark notes in s.applied the limits one call's answer res applied.
func (s *Simulator) mark(req *rlsmsg.Request, res *limit.Result) error {
	set := func(i int, limited bool) {
		if limited {
			s.applied[i] = 2
		} else if s.applied[i] == 0 {
			s.applied[i] = 1
		}
	}
	if s.target.rl != nil {
		for _, c := range res.Counters {
			if i, ok := s.target.limitIndex(req.Domain, c.Name); ok && c.Name != "" {
				set(i, !c.Decision.Allowed && res.Statuses[c.Descriptor].Code == rlsmsg.CodeOverLimit)
			}
		}
		return nil
	}
	over := map[int]bool{}
	for _, st := range res.Statuses {
		if st.Code == rlsmsg.CodeOverLimit && st.CurrentLimit != nil {
			if i, ok := s.target.limitIndex(req.Domain, st.CurrentLimit.Name); ok {
				over[i] = true
			}
		}
	}
	for _, p := range s.probes[req.Domain] {
		p.store.asked = false
		if err := p.ev.Evaluate(context.Background(), s.now, req, &s.probeResp); err != nil {
			return err
		}
		if p.store.asked || over[p.index] {
			set(p.index, over[p.index])
		}
	}
	return nil
}
