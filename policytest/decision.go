package policytest

import (
	"fmt"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Decision is the answer to one request and what made it.
type Decision struct {
	// Domain is the request's rate-limit domain; empty when the service was not called.
	Domain string
	// Code is the overall answer; CodeOK when the service was not called.
	Code rlsmsg.Code
	// Called reports whether the request produced descriptors, so that the service was asked.
	Called bool
	// Descriptor is the index of the deciding descriptor: the first over the limit or, when
	// none is, the one whose limit has the least remaining; -1 when no limit applied.
	Descriptor int
	// Limit is the deciding limit; nil when none applied or a descriptor's override decided.
	Limit *limitador.Limit
	// Status is the deciding descriptor's status (zero when Descriptor is -1).
	Status rlsmsg.Status
	// Statuses are the statuses of every descriptor, in request order. They share the
	// memory of the response they were read from.
	Statuses []rlsmsg.Status
}

// decided reports whether a limit decided: a descriptor's, or a local rate limit's.
func (d *Decision) decided() bool {
	return d.Descriptor >= 0 || d.Domain == localDomain && d.Status.CurrentLimit != nil
}

// decide picks the deciding status of resp.
func (t *Target) decide(resp *limit.Result, called bool, domain string) Decision {
	d := Decision{Code: rlsmsg.CodeOK, Called: called, Descriptor: -1}
	if !called {
		return d
	}
	d.Code, d.Domain = resp.OverallCode, domain
	d.Statuses = resp.Statuses
	for i, st := range resp.Statuses {
		if st.CurrentLimit == nil {
			continue
		}
		if st.Code == rlsmsg.CodeOverLimit {
			d.Descriptor = i
			break
		}
		if d.Descriptor < 0 || st.LimitRemaining < resp.Statuses[d.Descriptor].LimitRemaining {
			d.Descriptor = i
		}
	}
	if d.Descriptor >= 0 {
		d.Status = resp.Statuses[d.Descriptor]
		d.Limit = t.limitOf(domain, &d.Status)
	}
	return d
}

// limitOf returns the configured limit of a status, nil for none or an override.
func (t *Target) limitOf(domain string, st *rlsmsg.Status) *limitador.Limit {
	if st.CurrentLimit == nil || st.CurrentLimit.Name == "" {
		return nil
	}
	i, ok := t.limitIndex(domain, st.CurrentLimit.Name)
	if !ok {
		return nil
	}
	l := &t.Limits[i]
	if t.rules && domain != localDomain && (st.CurrentLimit.RequestsPerUnit != l.MaxValue || uint32(st.CurrentLimit.Unit.Seconds()) != l.Seconds) {
		return nil // the descriptor's override decided, not the rule's limit
	}
	return l
}

// describeStatus says which limit gave a status and what it left: `limit "admin" 5/10s
// remaining 0`; "no limit applies" when none did.
func (t *Target) describeStatus(domain string, st *rlsmsg.Status) string {
	if st.CurrentLimit == nil {
		return "no limit applies"
	}
	var what string
	if l := t.limitOf(domain, st); l != nil {
		what = fmt.Sprintf("limit %q %d/%ds", l.Name, l.MaxValue, l.Seconds)
	} else {
		what = fmt.Sprintf("the descriptor's override %d/%s", st.CurrentLimit.RequestsPerUnit, st.CurrentLimit.Unit)
	}
	return fmt.Sprintf("%s remaining %d", what, st.LimitRemaining)
}

// describe says what decided: `limit "admin" 5/10s remaining 0`.
func (t *Target) describe(d *Decision) string {
	if !d.Called {
		return "no descriptors: the service is not called"
	}
	if !d.decided() {
		return "no limit applies"
	}
	return t.describeStatus(d.Domain, &d.Status)
}

// formatDuration writes d as the shortest Go duration, in seconds when whole: "60s", "1.5s".
func formatDuration(d time.Duration) string {
	if d%time.Second == 0 {
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return d.String()
}

// pick makes status i the deciding one when it is the first over the limit, or else the one
// with the least remaining.
func (d *Decision) pick(i int, domain string) {
	st := &d.Statuses[i]
	if st.CurrentLimit == nil || d.Descriptor >= 0 && d.Status.Code == rlsmsg.CodeOverLimit {
		return
	}
	if d.Descriptor < 0 || st.Code == rlsmsg.CodeOverLimit || st.LimitRemaining < d.Status.LimitRemaining {
		d.Descriptor, d.Status, d.Domain = i, *st, domain
	}
}
