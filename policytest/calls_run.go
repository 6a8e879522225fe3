package policytest

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// runCallsCase runs one case against a target whose Frontend makes several calls.
func (t *Test) runCallsCase(target *Target, cf CallsFrontend, c *Case) CaseResult {
	r := CaseResult{Name: c.Name}
	var explain, trace strings.Builder
	in := c.Request.input()
	calls, done := cf.Calls(in, &trace)
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
	for _, w := range target.Warnings {
		fmt.Fprintf(&explain, "warning: %s\n", w)
	}
	fmt.Fprintf(&explain, "request %s %s\n", in.Method, c.Request.URL)
	for _, line := range strings.Split(strings.TrimSuffix(trace.String(), "\n"), "\n") {
		explain.WriteString("  " + line + "\n")
	}
	for i := range r.descriptors {
		fmt.Fprintf(&explain, "  descriptor %d: %s\n", i, r.descriptors[i].Describe())
	}
	if c.Descriptors != nil {
		if diff := diffDescriptors(*c.Descriptors, r.descriptors); diff != "" {
			r.Failures = append(r.Failures, "descriptors differ (-want +got):\n"+strings.TrimSuffix(diff, "\n"))
		}
	}
	ev, err := target.newEvaluator(counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: 1 << 12}))
	if err != nil {
		r.Failures = append(r.Failures, fmt.Sprintf("the limits are invalid: %v", err))
		r.Explain = explain.String()
		return r
	}
	var resp limit.Result
	send := func(now time.Time) (Decision, error) {
		return target.sendCalls(context.Background(), now, ev, calls, done, &resp, nil, nil)
	}
	t.runSteps(target, c, &r, &explain, send, r.descriptors)
	return r
}
