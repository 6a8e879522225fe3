package policytest

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// CaseResult is the outcome of one case.
type CaseResult struct {
	// Name is the case's name.
	Name string
	// Failures say what differed from the expectations, one message each; none when the
	// case passed.
	Failures []string
	// Explain tells, in words, which policy, gateway actions and rules produced which
	// descriptors, and which limit decided each step; it begins with the warnings of the
	// compiled inputs, if any.
	Explain string

	descriptors []rlsmsg.Descriptor
	steps       [][]run // per step, the repetitions grouped into runs of one decision
}

// Passed reports whether the case met every expectation.
func (r *CaseResult) Passed() bool { return len(r.Failures) == 0 }

// run is a stretch of consecutive repetitions of a step with the same code; last is the
// decision of its last repetition.
type run struct {
	n    int
	last Decision
}

// input builds the Frontend input of a case.
func (r *Request) input() *Input {
	u, _ := url.Parse(r.URL) // validated
	in := &Input{
		Method:        cmp.Or(r.Method, "GET"),
		Scheme:        u.Scheme,
		Host:          u.Host,
		Path:          u.RequestURI(),
		Headers:       map[string][]string{},
		RemoteAddress: r.RemoteAddress,
		HitsAddend:    r.HitsAddend,
	}
	for name, value := range r.Headers {
		if strings.EqualFold(name, "host") {
			in.Host = value
			continue
		}
		lower := strings.ToLower(name)
		in.Headers[lower] = append(in.Headers[lower], value)
	}
	if len(r.Metadata) > 0 {
		in.Metadata = descriptor.Metadata{}
		for ns, s := range r.Metadata {
			in.Metadata[ns] = s
		}
	}
	if len(r.Attributes) > 0 {
		flat := make(map[string]any, len(r.Attributes))
		for name, v := range r.Attributes {
			flat[strings.TrimPrefix(name, "auth.")] = v // validated
		}
		in.Auth = nestAuth(flat)
	}
	return in
}

// RunCase runs one case of t against target with fresh counters on a simulated clock, and
// compares what happened with the case's expectations.
func (t *Test) RunCase(target *Target, c *Case) CaseResult {
	cf, calls := target.Frontend.(CallsFrontend)
	if !calls {
		for i := range c.Steps {
			if c.Steps[i].Usage != nil {
				return CaseResult{Name: c.Name, Failures: []string{fmt.Sprintf("steps[%d].usage: this target makes no call after the response that reads usage (only kuadrant.io TokenRateLimitPolicies' reports and Envoy Gateway rules with a cost.response do)", i)}}
			}
		}
	}
	if calls {
		return t.runCallsCase(target, cf, c)
	}
	r := CaseResult{Name: c.Name}
	var explain strings.Builder
	in := c.Request.input()
	var trace strings.Builder
	var call rlsmsg.Request
	called := target.Frontend.Generate(in, &call, &trace)
	call = call.Clone()
	r.descriptors = append([]rlsmsg.Descriptor{}, call.Descriptors...)
	explainRequest(&explain, target, in.Method, c.Request.URL, traceLines(trace.String()), r.descriptors)
	r.checkDescriptors(c)

	store := counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: 1 << 12})
	ev, err := target.newEvaluator(store)
	if err != nil {
		r.Failures = append(r.Failures, fmt.Sprintf("the limits are invalid: %v", err))
		r.Explain = explain.String()
		return r
	}
	lreq := call
	var resp limit.Result
	type generated struct {
		call   rlsmsg.Request
		called bool
	}
	steps := map[*Step]*generated{} // the requests of steps with a request of their own
	send := func(now time.Time, s *Step) (Decision, error) {
		req, ok := &lreq, called
		if s.ownRequest() {
			g := steps[s]
			if g == nil {
				g = &generated{}
				g.called = target.Frontend.Generate(c.stepInput(s), &g.call, nil)
				g.call = g.call.Clone()
				steps[s] = g
			}
			req, ok = &g.call, g.called
		}
		if ok {
			if err := ev.Evaluate(context.Background(), now, req, &resp); err != nil {
				return Decision{}, err
			}
			target.nameStatuses(nil, &resp)
		}
		dec := target.decide(&resp, ok, req.Domain)
		dec.Statuses = slices.Clone(dec.Statuses)
		return dec, nil
	}
	descs := func(s *Step) ([]rlsmsg.Descriptor, []string) {
		if g := steps[s]; g != nil {
			return g.call.Descriptors, nil
		}
		return call.Descriptors, nil
	}
	t.runSteps(target, c, &r, &explain, send, descs)
	return r
}

// runSteps sends the request of c at each step's instants with send, and records in r the
// decisions, the failed expectations and (after explain's start) their explanation; descs
// returns the descriptors of a step's request, once sent, which explanations name, and
// notes on its calls once the response is done.
func (t *Test) runSteps(target *Target, c *Case, r *CaseResult, explain *strings.Builder, send func(time.Time, *Step) (Decision, error), descs func(*Step) ([]rlsmsg.Descriptor, []string)) {
	now := t.start
	for i := range c.Steps {
		s := &c.Steps[i]
		d, relative, _ := parseAt(s.At) // validated
		if relative {
			now = now.Add(d)
		} else {
			now = t.start.Add(d)
		}
		n := max(s.Repeat, 1)
		var runs []run
		mismatch := false
		for k := range n {
			dec, err := send(now, s)
			if err != nil {
				r.Failures = append(r.Failures, fmt.Sprintf("step %d: %v", i+1, err))
				r.Explain = explain.String()
				return
			}
			if len(runs) == 0 || runs[len(runs)-1].last.Code != dec.Code {
				runs = append(runs, run{})
			}
			runs[len(runs)-1].n++
			runs[len(runs)-1].last = dec
			if got := dec.Code.String(); got != s.Want && !mismatch {
				mismatch = true
				r.Failures = append(r.Failures, fmt.Sprintf("%s: want %s got %s; %s", stepLabel(i, k, n), s.Want, got, target.describe(&dec)))
			}
		}
		r.steps = append(r.steps, runs)
		last := runs[len(runs)-1].last
		fmt.Fprintf(explain, "step %d at %s, %s%s: %s\n", i+1, formatDuration(now.Sub(t.start)), plural(n, "request"), describeHeaders(s), summarize(runs))
		ds, notes := descs(s)
		explain.WriteString("  " + target.explainDecision(&last, ds) + "\n")
		for _, n := range notes {
			explain.WriteString("  " + n + "\n")
		}
		r.Failures = append(r.Failures, target.checkDetails(fmt.Sprintf("step %d", i+1), s, &last)...)
	}
	r.Explain = explain.String()
}

// stepLabel names repetition k of n of step i: "step 2" or "step 2 (request 51 of 60)".
func stepLabel(i, k, n int) string {
	if n == 1 {
		return fmt.Sprintf("step %d", i+1)
	}
	return fmt.Sprintf("step %d (request %d of %d)", i+1, k+1, n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// summarize writes the runs of a step: "OK", or "49 OK, then 11 OVER_LIMIT".
func summarize(runs []run) string {
	if len(runs) == 1 {
		return runs[0].last.Code.String()
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		parts[i] = fmt.Sprintf("%d %s", r.n, r.last.Code)
	}
	return strings.Join(parts, ", then ")
}

// explainDecision says in words which descriptor and limit decided.
func (t *Target) explainDecision(d *Decision, descs []rlsmsg.Descriptor) string {
	switch {
	case !d.Called:
		return "no descriptors: the rate-limit service is not called, the request is admitted"
	case d.Domain == localDomain && d.Status.CurrentLimit != nil:
		verb := "admitted"
		if d.Code == rlsmsg.CodeOverLimit {
			verb = "rejected"
		}
		return fmt.Sprintf("%s by the local rate limit: %s, a token back in %s", verb, t.describeStatus(d.Domain, &d.Status), formatDuration(d.Status.DurationUntilReset))
	case d.Descriptor < 0:
		return "no limit applies to any descriptor: the request is admitted"
	}
	verb := "admitted"
	if d.Code == rlsmsg.CodeOverLimit {
		verb = "rejected"
	}
	return fmt.Sprintf("%s by %s, reset in %s, on descriptor %d (%s)", verb, t.describeStatus(d.Domain, &d.Status),
		formatDuration(d.Status.DurationUntilReset), d.Descriptor, descs[d.Descriptor].Describe())
}

// checkDetails compares the optional expectations of a step with its last decision.
func (t *Target) checkDetails(label string, s *Step, d *Decision) []string {
	var out []string
	if s.Limit != nil || s.Remaining != nil || s.Reset != nil {
		var st rlsmsg.Status
		if d.decided() {
			st = d.Status
		}
		out = append(out, t.checkStatus(label, d.Domain, &Status{Want: s.Want, Limit: s.Limit, Remaining: s.Remaining, Reset: s.Reset}, &st, false)...)
	}
	if s.Statuses != nil {
		if len(s.Statuses) != len(d.Statuses) {
			out = append(out, fmt.Sprintf("%s: want %d statuses got %d", label, len(s.Statuses), len(d.Statuses)))
			return out
		}
		for i := range s.Statuses {
			out = append(out, t.checkStatus(fmt.Sprintf("%s: statuses[%d]", label, i), d.Domain, &s.Statuses[i], &d.Statuses[i], true)...)
		}
	}
	return out
}

// checkStatus compares one expected status with st; the code only when withCode.
func (t *Target) checkStatus(label, domain string, want *Status, st *rlsmsg.Status, withCode bool) []string {
	var out []string
	got := t.describeStatus(domain, st)
	if withCode && st.Code.String() != want.Want {
		out = append(out, fmt.Sprintf("%s: want %s got %s; %s", label, want.Want, st.Code, got))
	}
	name := ""
	if st.CurrentLimit != nil {
		name = st.CurrentLimit.Name
	}
	if want.Limit != nil && *want.Limit != name {
		out = append(out, fmt.Sprintf("%s: want limit %q got %s", label, *want.Limit, got))
	}
	if want.Remaining != nil && *want.Remaining != st.LimitRemaining {
		out = append(out, fmt.Sprintf("%s: want remaining %d got %s", label, *want.Remaining, got))
	}
	if want.Reset != nil {
		w, _ := time.ParseDuration(*want.Reset) // validated
		if w != st.DurationUntilReset {
			out = append(out, fmt.Sprintf("%s: want reset %s got %s; %s", label, *want.Reset, formatDuration(st.DurationUntilReset), got))
		}
	}
	return out
}

// explainRequest writes the head of a case's explanation: the target's warnings, the
// request, the frontend's trace, indented, and the descriptors it sent.
func explainRequest(w *strings.Builder, target *Target, method, url string, trace []string, descriptors []rlsmsg.Descriptor) {
	for _, x := range target.Warnings {
		fmt.Fprintf(w, "warning: %s\n", x)
	}
	fmt.Fprintf(w, "request %s %s\n", method, url)
	for _, line := range trace {
		w.WriteString("  " + line + "\n")
	}
	for i := range descriptors {
		fmt.Fprintf(w, "  descriptor %d: %s\n", i, descriptors[i].Describe())
	}
}

// traceLines splits a frontend's trace into its lines.
func traceLines(trace string) []string {
	return strings.Split(strings.TrimSuffix(trace, "\n"), "\n")
}

// checkDescriptors records a failure when c expects other descriptors than r's.
func (r *CaseResult) checkDescriptors(c *Case) {
	if c.Descriptors == nil {
		return
	}
	if diff := diffDescriptors(*c.Descriptors, r.descriptors); diff != "" {
		r.Failures = append(r.Failures, "descriptors differ (-want +got):\n"+strings.TrimSuffix(diff, "\n"))
	}
}
