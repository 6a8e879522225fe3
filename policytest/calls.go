package policytest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Call is one call of a proxy's rate-limit filter to the rate-limit service (the
// contract's).
type Call = policyapi.Call

// CallsFrontend is a Frontend whose proxy may call the rate-limit service more than once
// for a request (the contract's). Targets of a CallsFrontend send every call, and, for a
// policyapi.LocalFrontend, decide the proxy's local rate limit first.
type CallsFrontend = policyapi.CallsFrontend

// localDomain is the Decision.Domain of a local rate limit's answer.
const localDomain = policyapi.LocalDomain

// flattenCalls returns the descriptors of every call, in call order.
func flattenCalls(calls []Call) []rlsmsg.Descriptor {
	var out []rlsmsg.Descriptor
	for i := range calls {
		out = append(out, calls[i].Request.Descriptors...)
	}
	return out
}

// sendCalls decides local, when not nil, at now: an empty bucket rejects the request
// before any call. It then sends calls at now through ev, in order, until one answers
// OVER_LIMIT, then the done calls of the filters that ran. Each request-time answer is
// passed to each, if not nil, before the next call. The decision's statuses are those of
// every request-time descriptor (OK without a limit for the calls not made), its domain
// that of the deciding call, or "local" when the local rate limit decided (it rejected, or
// no call is made). The statuses are written in buf's memory when it is large enough.
// Each stream-done call made is passed to charged, if not nil, with its answer.
func (t *Target) sendCalls(ctx context.Context, now time.Time, ev limit.Evaluator, calls, done []Call, local *policyapi.LocalLimit, resp *limit.Result, buf []rlsmsg.Status, each, charged func(*Call, *limit.Result)) (Decision, error) {
	d := Decision{Code: rlsmsg.CodeOK, Descriptor: -1}
	n := 0
	for i := range calls {
		n += len(calls[i].Request.Descriptors)
	}
	if cap(buf) >= n {
		d.Statuses = buf[:n]
		clear(d.Statuses)
	} else {
		d.Statuses = make([]rlsmsg.Status, n)
	}
	for i := range d.Statuses {
		d.Statuses[i].Code = rlsmsg.CodeOK
	}
	if local != nil {
		d.Called = true
		if st := local.Take(now); st.Code == rlsmsg.CodeOverLimit || len(calls) == 0 {
			d.Domain, d.Status = localDomain, st
			d.Limit = t.limitOf(localDomain, &d.Status)
			if st.Code == rlsmsg.CodeOverLimit {
				d.Code = rlsmsg.CodeOverLimit
				return d, nil
			}
		}
	}
	ran, offset := -1, 0
	for ci := range calls {
		c := &calls[ci]
		d.Called, ran = true, ci
		if err := sendCall(ctx, now, ev, c, resp); err != nil {
			return Decision{}, err
		}
		t.nameStatuses(c.Rules, resp)
		if each != nil {
			each(c, resp)
		}
		for i, st := range resp.Statuses {
			d.Statuses[offset+i] = st
			d.pick(offset+i, c.Request.Domain)
		}
		offset += len(c.Request.Descriptors)
		if resp.OverallCode == rlsmsg.CodeOverLimit {
			d.Code = rlsmsg.CodeOverLimit
			break
		}
	}
	if d.Descriptor >= 0 {
		d.Limit = t.limitOf(d.Domain, &d.Status)
	}
	var dresp limit.Result
	for i := range done {
		if !slices.ContainsFunc(calls[:ran+1], func(c Call) bool { return c.Filter == done[i].Filter }) {
			continue
		}
		if (done[i].Kind == policyapi.CallReport || done[i].FromResponse) && d.Code == rlsmsg.CodeOverLimit {
			continue // the proxy answered 429 itself: there is no upstream response to report
		}
		if err := sendCall(ctx, now, ev, &done[i], &dresp); err != nil {
			return Decision{}, err
		}
		if charged != nil {
			charged(&done[i], &dresp)
		}
	}
	return d, nil
}

// checkReporter is an evaluator with Limitador's CheckRateLimit and Report
// (limitador.Evaluator, as rls uses it).
type checkReporter interface {
	Probe(ctx context.Context, now time.Time, req *rlsmsg.Request, resp *limit.Result, hits uint64) error
	Charge(ctx context.Context, now time.Time, req *rlsmsg.Request, resp *limit.Result, delta int64, releaseBefore time.Time) error
}

// sendCall sends one call through ev by its kind: a check as Limitador's CheckRateLimit
// (as if adding 1, charging nothing), a report as its Report (hits_addend, 0 counting
// as 1, added to every matching counter, always OK).
func sendCall(ctx context.Context, now time.Time, ev limit.Evaluator, c *Call, resp *limit.Result) error {
	if c.Kind == policyapi.CallShould {
		return ev.Evaluate(ctx, now, &c.Request, resp)
	}
	cr, ok := ev.(checkReporter)
	if !ok {
		return fmt.Errorf("%s: the rate-limit service's limits have no check and report (only Limitador's do)", c.Filter)
	}
	if c.Kind == policyapi.CallCheck {
		return cr.Probe(ctx, now, &c.Request, resp, 1)
	}
	if err := cr.Charge(ctx, now, &c.Request, resp, int64(limit.RequestCost(&c.Request)), time.Time{}); err != nil {
		return err
	}
	resp.OverallCode = rlsmsg.CodeOK
	return nil
}
