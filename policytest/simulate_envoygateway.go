package policytest

import (
	"context"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// replayEnvoyGateway replays one request against a target of BackendTrafficPolicies: the
// rules whose descriptors (or local buckets) it produced applied to it; a rule limited it
// when its descriptor was over the limit, or its local bucket was empty.
func (s *Simulator) replayEnvoyGateway(e *LogEntry) (Decision, error) {
	port := int32(0)
	if i := strings.LastIndexByte(e.Authority, ':'); i >= 0 && !strings.HasSuffix(e.Authority, "]") {
		if p, err := strconv.Atoi(e.Authority[i+1:]); err == nil {
			port = int32(p)
		}
	}
	req := s.in.Descriptor()
	ev := s.target.eg.gw.Evaluate(&req, port)
	s.egDescs = flatten(ev)
	d, err := s.eg.send(context.Background(), e.Time, ev)
	if err != nil {
		return Decision{}, err
	}
	applied := map[int]bool{} // stats index -> limited
	if ev.Local != nil {
		names := []string{localDefault(ev.Route)}
		if len(ev.Local.Matched) > 0 {
			names = names[:0]
			for _, m := range ev.Local.Matched {
				names = append(names, m.Rule)
			}
		}
		for _, n := range names {
			if i, ok := s.target.limitIndex(localDomain, n); ok {
				applied[i] = applied[i] || d.Domain == localDomain && d.Status.CurrentLimit.Name == n
			}
		}
	}
	k := 0
	for _, c := range ev.Calls {
		for j := range c.Request.Descriptors {
			if i, ok := s.target.limitIndex(c.Request.Domain, c.Rules[j]); ok {
				applied[i] = applied[i] || d.Statuses[k].Code == rlsmsg.CodeOverLimit
			}
			k++
		}
	}
	sec := e.Time.Unix()
	for i, limited := range applied {
		s.count(i, sec, e, d.Code == rlsmsg.CodeOK, limited)
	}
	return d, nil
}

// egExplain is Explain for a target of BackendTrafficPolicies.
func (s *Simulator) egExplain(d *Decision) string {
	if d.Domain == localDomain {
		return "rejected by the local rate limit: " + s.target.describeStatus(d.Domain, &d.Status)
	}
	return s.target.explainDecision(d, s.egDescs)
}
