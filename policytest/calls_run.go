package policytest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// runCallsCase runs one case against a target whose Frontend makes several calls, and
// decides a LocalFrontend's local rate limit, with buckets of the case's own, first.
func (t *Test) runCallsCase(target *Target, cf CallsFrontend, c *Case) CaseResult {
	r := CaseResult{Name: c.Name}
	var explain, trace strings.Builder
	in := c.Request.input()
	var calls, done []Call
	var local *policyapi.LocalLimit
	if lf, ok := cf.(policyapi.LocalFrontend); ok {
		calls, done, local = lf.NewLocal().Calls(in, &trace)
	} else {
		calls, done = cf.Calls(in, &trace)
	}
	for i := range calls {
		calls[i].Request = calls[i].Request.Clone()
	}
	for i := range done {
		done[i].Request = done[i].Request.Clone()
	}
	r.descriptors = flattenCalls(calls)
	if r.descriptors == nil {
		r.descriptors = []rlsmsg.Descriptor{}
	}
	explainRequest(&explain, target, in.Method, c.Request.URL, traceLines(trace.String()), r.descriptors)
	r.checkDescriptors(c)
	ev, err := target.newEvaluator(counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: 1 << 12}))
	if err != nil {
		r.Failures = append(r.Failures, fmt.Sprintf("the limits are invalid: %v", err))
		r.Explain = explain.String()
		return r
	}
	var resp limit.Result
	after := map[*Step][]Call{} // the calls after the response, by the step whose usage they report
	send := func(now time.Time, s *Step) (Decision, error) {
		d := done
		if s.Usage != nil {
			var ok bool
			if d, ok = after[s]; !ok {
				in := *in
				in.Response = s.Usage.response()
				_, d = cf.Calls(&in, nil)
				for i := range d {
					d[i].Request = d[i].Request.Clone()
				}
				after[s] = d
			}
		}
		return target.sendCalls(context.Background(), now, ev, calls, d, local, &resp, nil, nil, nil)
	}
	t.runSteps(target, c, &r, &explain, send, r.descriptors)
	return r
}
