package policytest

import (
	"context"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// charge counts, per limit, the hits a stream-done call c charged (answered res): each
// descriptor's to the limit it counts for. A call names that limit as the descriptor's rule,
// or an envoyproxy/ratelimit answer lists its counters, or else each Limitador limit whose
// probe is asked for the descriptor takes it.
func (s *Simulator) charge(c *Call, res *limit.Result) error {
	req := &c.Request
	switch {
	case c.Rules != nil:
		for j := range req.Descriptors {
			if i, ok := s.target.limitIndex(req.Domain, c.Rules[j]); ok {
				s.addTokens(i, callHits(c, j))
			}
		}
	case s.target.rl != nil:
		for _, ct := range res.Counters {
			if i, ok := s.target.limitIndex(req.Domain, ct.Name); ok && ct.Name != "" {
				s.addTokens(i, callHits(c, ct.Descriptor))
			}
		}
	default:
		one := rlsmsg.Request{Domain: req.Domain, HitsAddend: req.HitsAddend}
		for j := range req.Descriptors {
			one.Descriptors = append(one.Descriptors[:0], req.Descriptors[j])
			for _, p := range s.probes[req.Domain] {
				p.store.asked = false
				if err := p.ev.Evaluate(context.Background(), s.now, &one, &s.probeResp); err != nil {
					return err
				}
				if p.store.asked {
					s.addTokens(p.index, callHits(c, j))
				}
			}
		}
	}
	return nil
}

// callHits returns what descriptor j of call c adds to its counters: a report's hits_addend
// (0 counting as 1), else the descriptor's cost.
func callHits(c *Call, j int) uint64 {
	if c.Kind == policyapi.CallReport {
		return limit.RequestCost(&c.Request)
	}
	return limit.Cost(&c.Request, &c.Request.Descriptors[j])
}

// addTokens adds n tokens charged at the current request's time to limit i.
func (s *Simulator) addTokens(i int, n uint64) {
	b := s.timelineBucket(i, s.now) // before reading Timeline, which it may grow
	s.stats[i].Tokens += n
	s.stats[i].Timeline[b].Tokens += n
}
