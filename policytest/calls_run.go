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
	var run policyapi.Local // the proxy's local buckets, shared by every step
	if lf, ok := cf.(policyapi.LocalFrontend); ok {
		run = lf.NewLocal()
		calls, done, local = run.Calls(in, &trace)
	} else {
		calls, done = cf.Calls(in, &trace)
	}
	cloneCalls(calls)
	cloneCalls(done)
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
	caseCalls := &stepCalls{calls: calls, done: done, local: local, descs: r.descriptors}
	steps := map[*Step]*stepCalls{} // the calls of steps with a request or usage of their own
	get := func(s *Step) *stepCalls {
		if !s.ownRequest() && s.Usage == nil {
			return caseCalls
		}
		if sc := steps[s]; sc != nil {
			return sc
		}
		sc := *caseCalls
		sin := in
		if s.ownRequest() {
			sin = c.stepInput(s)
			if run != nil {
				sc.calls, sc.done, sc.local = run.Calls(sin, nil)
			} else {
				sc.calls, sc.done = cf.Calls(sin, nil)
			}
			cloneCalls(sc.calls)
			cloneCalls(sc.done)
			sc.descs = flattenCalls(sc.calls)
		}
		if s.Usage != nil {
			u := *sin
			u.Response = s.Usage.response()
			_, sc.done = cf.Calls(&u, nil)
			cloneCalls(sc.done)
		}
		steps[s] = &sc
		return &sc
	}
	send := func(now time.Time, s *Step) (Decision, error) {
		sc := get(s)
		return target.sendCalls(context.Background(), now, ev, sc.calls, sc.done, sc.local, &resp, nil, nil, nil)
	}
	t.runSteps(target, c, &r, &explain, send, func(s *Step) ([]rlsmsg.Descriptor, []string) {
		sc := get(s)
		if s.Usage == nil {
			return sc.descs, nil
		}
		return sc.descs, doneNotes(sc.done)
	})
	return r
}

// stepCalls are the calls of a step's requests: at the request and when the response is
// done, the local rate limit, and the request-time descriptors.
type stepCalls struct {
	calls, done []Call
	local       *policyapi.LocalLimit
	descs       []rlsmsg.Descriptor
}

// cloneCalls gives each call a copy of its request, so that it outlives the Frontend's
// buffers.
func cloneCalls(calls []Call) {
	for i := range calls {
		calls[i].Request = calls[i].Request.Clone()
	}
}

// doneNotes says what the calls made once a step's response is done send, for a step with
// usage: each descriptor and its hits, or that none is made.
func doneNotes(done []Call) []string {
	var out []string
	for _, c := range done {
		cond := ""
		if c.FromResponse || c.Kind == policyapi.CallReport {
			cond = " (if admitted)"
		}
		for _, d := range c.Request.Descriptors {
			out = append(out, fmt.Sprintf("when the response is done%s: filter %s sends %s", cond, c.Filter, d.Describe()))
		}
	}
	if len(out) == 0 {
		out = append(out, "when the response is done: no call reads its usage")
	}
	return out
}
