package limit

import (
	"context"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Evaluator decides rate-limit requests: one format's configuration over
// a counter store. Implementations are immutable and safe for concurrent
// use; a server replaces an Evaluator as a whole to change configuration.
type Evaluator interface {
	// Evaluate decides req at now into res (see Result), reusing the
	// storage of res's slices. It returns an *InvalidRequestError for a
	// request the format cannot evaluate and a *StoreError when the
	// counter store cannot answer; res is then unspecified, except that
	// on a *StoreError res.Counters lists the counters the request was to
	// update, with zero decisions.
	Evaluate(ctx context.Context, now time.Time, req *rlsmsg.Request, res *Result) error
	// Configured reports whether the evaluator has configuration for
	// domain (see Result.Configured).
	Configured(domain string) bool
}

// Result is what an evaluation produced: the response to send and what a
// server's metrics read.
type Result struct {
	// Response is the answer: one status per request descriptor, in
	// request order.
	rlsmsg.Response
	// Counters has one entry per counter the request was evaluated
	// against, in evaluation order, for metrics.
	Counters []Counted
	// Configured reports whether the evaluator has configuration for the
	// request's domain. A server labelling metrics by domain collapses the
	// others, which clients choose freely.
	Configured bool
	// ShadowedOverLimit is set when a shadow mode turned an over-limit
	// answer into OK.
	ShadowedOverLimit bool
	// Quota, when not empty, has one entry per status: whether its
	// descriptor is a quota (envoyproxy/ratelimit's quota_mode), whose
	// being over decides the overall code only with the other quotas, and
	// which the reference's RateLimit headers do not describe as over.
	Quota []bool
}

// Reset prepares r for a request of n descriptors: no counters, overall
// code OK, n statuses OK without a limit and no headers, reusing r's
// storage.
func (r *Result) Reset(n int) {
	clear(r.Counters)
	r.Counters = r.Counters[:0]
	if cap(r.Statuses) < n {
		r.Statuses = make([]rlsmsg.Status, n)
	}
	r.Statuses = r.Statuses[:n]
	for i := range r.Statuses {
		r.Statuses[i] = rlsmsg.Status{Code: rlsmsg.CodeOK}
	}
	clear(r.ResponseHeadersToAdd)
	r.Response = rlsmsg.Response{OverallCode: rlsmsg.CodeOK, Statuses: r.Statuses, ResponseHeadersToAdd: r.ResponseHeadersToAdd[:0]}
	r.Configured, r.ShadowedOverLimit = false, false
	r.Quota = r.Quota[:0]
}

// Counted is one counter of a request: the limit it belongs to, the hits
// asked for and the store's decision.
type Counted struct {
	// Descriptor is the index of the first request descriptor the counter
	// is reported on.
	Descriptor int
	// Limit is the limit the counter belongs to, as reported in statuses:
	// its Name is the configured limit's name, never a request value (empty
	// for an unnamed limit and for an override). Shared: do not modify it.
	Limit *rlsmsg.RateLimit
	// Name names the limit in metrics: the configured limit's name, or for
	// a format whose limits have none, their configured path; never a
	// value of the request. Empty for an unnamed limit and an override.
	Name string
	// Override reports whether the limit is the descriptor's own override
	// rather than a configured limit.
	Override bool
	// Cost is the counter's hits (0 for a check).
	Cost uint64
	// Decision is the store's decision; the zero Decision when the store
	// failed.
	Decision counter.Decision
}
