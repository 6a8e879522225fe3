package envoygateway

import (
	"container/list"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/policy/egv1alpha1"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// MaxDynamicDescriptors is how many token buckets of request values (a distinct header,
// parameter or address) a route's local rate limit keeps, as Envoy Gateway configures
// Envoy; beyond, the least recently used is dropped.
const MaxDynamicDescriptors = 10000

// LocalRequest is what a route's local rate limit sees of a request: the descriptors of
// its configuration the request matches, and its default bucket.
type LocalRequest struct {
	// Route is the xDS route's name: its buckets are its own.
	Route string `json:"route"`
	// Matched are the matched descriptors, in configuration order.
	Matched []LocalMatch `json:"matched"`
	// Requests per Unit is the default bucket, used when nothing matched.
	Requests uint32                   `json:"requests"`
	Unit     egv1alpha1.RateLimitUnit `json:"unit"`
}

// LocalMatch is one matched descriptor of a local rate limit.
type LocalMatch struct {
	// Index is the descriptor's index in the route's configuration; Rule its rule's name.
	Index int    `json:"index"`
	Rule  string `json:"rule"`
	// Entries are the request's entries, values filled in for the request-valued ones.
	Entries []rlsmsg.Entry `json:"entries"`
	// Dynamic reports whether an entry takes the request's value, so that each value has
	// its own bucket.
	Dynamic bool `json:"dynamic,omitempty"`
	// Requests per Unit is the descriptor's bucket; ShadowMode lets the request through
	// when it is empty.
	Requests   uint32                   `json:"requests"`
	Unit       egv1alpha1.RateLimitUnit `json:"unit"`
	ShadowMode bool                     `json:"shadowMode,omitempty"`
}

// localRequest matches a request against the route's local rules.
func localRequest(rt *Route, q *request, ev *Evaluation) *LocalRequest {
	l := rt.RateLimit.Local
	out := &LocalRequest{Route: rt.Name, Requests: l.Requests, Unit: l.Unit}
	k := 0
	for i, r := range l.Rules {
		methods := []*StringMatch{nil}
		if len(r.Methods) > 0 {
			methods = methods[:0]
			for mi := range r.Methods {
				methods = append(methods, &r.Methods[mi])
			}
		}
		for _, m := range methods {
			ri := strconv.Itoa(i)
			entries, why := ruleEntries(r, i, m, q, "rule-"+ri+"-masked-remote-address", "rule-"+ri+"-remote-address")
			if why != "" {
				ev.tracef("local rule %s%s: %s: no descriptor", r.Name, methodNote(m), why)
			} else {
				out.Matched = append(out.Matched, LocalMatch{Index: k, Rule: r.Name, Entries: entries, Dynamic: dynamic(r),
					Requests: r.Requests, Unit: r.Unit, ShadowMode: r.ShadowMode})
				ev.tracef("local rule %s%s: descriptor %s, bucket %d/%s", r.Name, methodNote(m), (&rlsmsg.Descriptor{Entries: entries}).Describe(), r.Requests, r.Unit)
			}
			k++
		}
	}
	if len(out.Matched) == 0 {
		ev.tracef("local rate limit: no rule matches, the default bucket %d/%s counts the request", l.Requests, l.Unit)
	}
	return out
}

// dynamic reports whether a rule's descriptor takes request values.
func dynamic(r *Rule) bool {
	return r.CIDR != nil && r.CIDR.Distinct || slices.ContainsFunc(r.Headers, func(m StringMatch) bool { return m.Distinct }) ||
		slices.ContainsFunc(r.Query, func(m StringMatch) bool { return m.Distinct })
}

// LocalDecision is a local rate limit's answer.
type LocalDecision struct {
	// Allowed reports whether the request goes on.
	Allowed bool
	// By names the bucket that decided: a rule's name, or "default"; Shadowed is set when
	// a shadow rule's empty bucket let the request through.
	By       string
	Shadowed bool
	// Remaining is the tokens left in that bucket, rounded down.
	Remaining uint32
}

// LocalLimiter is Envoy's local rate limit buckets, per route: token buckets that start
// full and refill continuously, Requests tokens per Unit. It is not safe for concurrent
// use; time is an argument.
type LocalLimiter struct {
	buckets map[string]*list.Element
	lru     map[string]*list.List // per route, its dynamic buckets, most recent first
}

type bucket struct {
	key    string
	tokens float64
	at     time.Time
}

// NewLocalLimiter returns a limiter with every bucket full.
func NewLocalLimiter() *LocalLimiter {
	return &LocalLimiter{buckets: map[string]*list.Element{}, lru: map[string]*list.List{}}
}

// Allow decides a request at now as Envoy's local rate limit does: the matched descriptors'
// buckets, slowest to refill first, each take a token until one is empty (which rejects
// the request, unless the descriptor is in shadow mode); with no descriptor matched, the
// default bucket takes one.
func (l *LocalLimiter) Allow(now time.Time, lr *LocalRequest) LocalDecision {
	matched := slices.Clone(lr.Matched)
	slices.SortStableFunc(matched, func(a, b LocalMatch) int {
		return compareRate(a.Requests, a.Unit, b.Requests, b.Unit)
	})
	for _, m := range matched {
		b := l.bucket(lr.Route, m, now)
		if ok, rem := take(b, m.Requests, m.Unit, now); !ok {
			return LocalDecision{Allowed: m.ShadowMode, By: m.Rule, Shadowed: m.ShadowMode, Remaining: rem}
		}
	}
	if len(matched) > 0 {
		m := matched[0]
		return LocalDecision{Allowed: true, By: m.Rule, Remaining: uint32(l.bucket(lr.Route, m, now).Value.(*bucket).tokens)}
	}
	e := l.get(lr.Route+"|default", "", lr.Requests, now)
	ok, rem := take(e, lr.Requests, lr.Unit, now)
	return LocalDecision{Allowed: ok, By: "default", Remaining: rem}
}

// compareRate orders buckets by fill rate, slowest first.
func compareRate(ra uint32, ua egv1alpha1.RateLimitUnit, rb uint32, ub egv1alpha1.RateLimitUnit) int {
	a, b := float64(ra)/float64(max(ua.Seconds(), 1)), float64(rb)/float64(max(ub.Seconds(), 1))
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (l *LocalLimiter) bucket(route string, m LocalMatch, now time.Time) *list.Element {
	key := route + "|" + strconv.Itoa(m.Index)
	dyn := ""
	if m.Dynamic {
		var vals []string
		for _, e := range m.Entries {
			vals = append(vals, e.Value)
		}
		key += "|" + strings.Join(vals, "\x00")
		dyn = route
	}
	return l.get(key, dyn, m.Requests, now)
}

// get returns the bucket of key, created full; a dynamic one (route set) is kept among the
// route's MaxDynamicDescriptors most recent.
func (l *LocalLimiter) get(key, route string, capacity uint32, now time.Time) *list.Element {
	if e, ok := l.buckets[key]; ok {
		if route != "" {
			l.lru[route].MoveToFront(e)
		}
		return e
	}
	b := &bucket{key: key, tokens: float64(capacity), at: now}
	var e *list.Element
	if route == "" {
		e = list.New().PushFront(b)
	} else {
		ll := l.lru[route]
		if ll == nil {
			ll = list.New()
			l.lru[route] = ll
		}
		e = ll.PushFront(b)
		if ll.Len() > MaxDynamicDescriptors {
			old := ll.Back()
			ll.Remove(old)
			delete(l.buckets, old.Value.(*bucket).key)
		}
	}
	l.buckets[key] = e
	return e
}

// take refills a bucket to now and takes a token if it has one; it returns whether it did
// and the tokens left.
func take(e *list.Element, capacity uint32, unit egv1alpha1.RateLimitUnit, now time.Time) (bool, uint32) {
	b := e.Value.(*bucket)
	if d := now.Sub(b.at); d > 0 {
		b.tokens = min(float64(capacity), b.tokens+d.Seconds()*float64(capacity)/float64(max(unit.Seconds(), 1)))
		b.at = now
	}
	if b.tokens < 1 {
		return false, 0
	}
	b.tokens--
	return true, uint32(b.tokens)
}

// String describes a decision for traces.
func (d LocalDecision) String() string {
	switch {
	case d.Shadowed:
		return fmt.Sprintf("local bucket of %s empty, let through (shadow mode)", d.By)
	case !d.Allowed:
		return fmt.Sprintf("local bucket of %s empty: 429", d.By)
	}
	return fmt.Sprintf("local bucket of %s: %d tokens left", d.By, d.Remaining)
}
