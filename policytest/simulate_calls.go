package policytest

import (
	"context"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// replayCalls replays one request against a target whose Frontend makes several calls: a
// limit applied when a call's answer counted on it (an envoyproxy/ratelimit configuration
// lists its counters), when a call names it as a descriptor's rule, when it is a local
// bucket that applies or, for Limitador limits, when its probe was asked; it limited the
// request when it was over on a descriptor, or was the local bucket that rejected it.
func (s *Simulator) replayCalls(e *LogEntry) (Decision, error) {
	s.now = e.Time
	var calls, done []Call
	var local *policyapi.LocalLimit
	if s.local != nil {
		calls, done, local = s.local.Calls(&s.in, nil)
	} else {
		calls, done = s.calls.Calls(&s.in, nil)
	}
	s.callDescs = flattenCalls(calls)
	clear(s.applied)
	var perr error
	mark := func(c *Call, res *limit.Result) {
		if err := s.mark(c, res); err != nil && perr == nil {
			perr = err
		}
	}
	charged := func(c *Call, res *limit.Result) {
		if err := s.charge(c, res); err != nil && perr == nil {
			perr = err
		}
	}
	d, err := s.target.sendCalls(context.Background(), e.Time, s.ev, calls, done, local, &s.resp, s.statuses, mark, charged)
	s.statuses = d.Statuses[:0]
	if err == nil {
		err = perr
	}
	if err != nil {
		return Decision{}, err
	}
	s.markRules(&d, calls, local)
	sec := e.Time.Unix()
	for i, a := range s.applied {
		if a > 0 {
			s.count(i, sec, e, d.Code == rlsmsg.CodeOK, a == 2)
		}
	}
	return d, nil
}

// set notes in s.applied that limit i applied, and whether it limited.
func (s *Simulator) set(i int, limited bool) {
	if limited {
		s.applied[i] = 2
	} else if s.applied[i] == 0 {
		s.applied[i] = 1
	}
}

// markRules notes in s.applied the limits d applied by name: the local buckets that apply
// (limited when one decided d) and the rules every call names, made or not (limited when
// its descriptor was over).
func (s *Simulator) markRules(d *Decision, calls []Call, local *policyapi.LocalLimit) {
	if local != nil {
		for _, n := range local.Buckets {
			if i, ok := s.target.limitIndex(localDomain, n); ok {
				s.set(i, d.Domain == localDomain && d.Status.CurrentLimit.Name == n)
			}
		}
	}
	k := 0
	for _, c := range calls {
		for j := range c.Rules {
			if i, ok := s.target.limitIndex(c.Request.Domain, c.Rules[j]); ok {
				s.set(i, d.Statuses[k].Code == rlsmsg.CodeOverLimit)
			}
			k++
		}
		if c.Rules == nil {
			k += len(c.Request.Descriptors)
		}
	}
}

// mark notes in s.applied the limits one call's answer res applied, for a call that does
// not name its rules (markRules counts those).
func (s *Simulator) mark(c *Call, res *limit.Result) error {
	req := &c.Request
	if c.Rules != nil {
		return nil
	}
	if s.target.rl != nil {
		for _, c := range res.Counters {
			if i, ok := s.target.limitIndex(req.Domain, c.Name); ok && c.Name != "" {
				s.set(i, !c.Decision.Allowed && res.Statuses[c.Descriptor].Code == rlsmsg.CodeOverLimit)
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
			s.set(p.index, over[p.index])
		}
	}
	return nil
}
