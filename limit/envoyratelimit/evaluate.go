package envoyratelimit

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// DefaultNearLimitRatio is the reference's NEAR_LIMIT_RATIO.
const DefaultNearLimitRatio = 0.8

// Options configures an Evaluator.
type Options struct {
	// Store keeps the counters; required.
	Store counter.Store
	// ShadowMode (SHADOW_MODE=true) answers OK overall whatever the
	// statuses say.
	ShadowMode bool
	// QuotaMode (QUOTA_MODE=true) makes every descriptor of a request a
	// quota descriptor, as a quota_mode rule makes its own (see the
	// package doc): unlimited ones aside, unmatched ones included, as the
	// reference counts them.
	QuotaMode bool
	// DynamicMetadata (RESPONSE_DYNAMIC_METADATA=true) fills every
	// answer's dynamic_metadata as the reference does (see the package
	// doc).
	DynamicMetadata bool
	// NearLimitRatio is the fraction of a limit above which hits count as
	// near_limit; 0 means DefaultNearLimitRatio. The threshold is computed
	// in single precision, as the reference computes it.
	NearLimitRatio float64
	// Observe, when set, is called for every limit evaluated, with its
	// statistics key and this request's counts. It must be fast and safe
	// for concurrent use. A key of kind StatDetailed or StatOverride holds
	// request values: a server keeping them should bound how many it keeps.
	Observe func(s Stat, c RuleCounts)
	// TagBy chooses the counter keys' Redis Cluster hash tag: the domain
	// (the default) or the domain and the descriptor's first entry (see
	// limit.TagBy). With TagByFirstEntry, a request's counters may fall
	// under several tags: a Redis Cluster store must then be allowed to
	// decide them one tag at a time (limit/redis's Options.SplitHashTags).
	TagBy limit.TagBy
	// Keys chooses the counter keys: rlpkit's (KeysRLPKit, the default) or
	// envoyproxy/ratelimit's (KeysReference), for a store counting as the
	// reference does (limit/redis/refcount). With KeysReference, TagBy is
	// not used, and a rejected hit's statistics are split between
	// over_limit and near_limit as the reference splits them.
	Keys KeyFormat
	// OnCountOverError, when set, is called with the error of the store
	// when it fails to count the rejected hits of the fixed-window
	// counters a request was over; the answer stands. It must be safe for
	// concurrent use.
	//
	// Those hits are counted by a second Store.Update that adds the cost of
	// every rejected fixed-window update to its counter, whether the
	// request is refused or let through. A check (hits_addend 0) of that
	// counter is then over until its window ends, so a budget charged when
	// a response is done (Envoy Gateway's costs) stops its client once a
	// charge took it over.
	OnCountOverError func(err error)
}

// RuleCounts are one request's contribution to a limit's statistics, under
// the reference's names (ratelimit.service.rate_limit.<key>.<name>).
type RuleCounts struct {
	TotalHits, OverLimit, NearLimit, WithinLimit, ShadowMode uint64
}

// Evaluator decides requests against a Config over a counter.Store: a
// limit.Evaluator. It is immutable and safe for concurrent use; create it
// with NewEvaluator, and one for each configuration loaded with WithConfig.
type Evaluator struct {
	o       Options
	cfg     *Config
	scratch *sync.Pool // *scratch, shared by the evaluators of one NewEvaluator
}

var _ limit.Evaluator = (*Evaluator)(nil)

// NewEvaluator returns an Evaluator without configuration: it answers
// every domain as unconfigured (OK) until WithConfig gives it one.
func NewEvaluator(o Options) (*Evaluator, error) {
	if o.Store == nil {
		return nil, fmt.Errorf("ratelimit: no counter store")
	}
	if o.NearLimitRatio == 0 {
		o.NearLimitRatio = DefaultNearLimitRatio
	}
	if o.NearLimitRatio < 0 || o.NearLimitRatio > 1 {
		return nil, fmt.Errorf("ratelimit: near-limit ratio %v is not within [0, 1]", o.NearLimitRatio)
	}
	if o.TagBy != limit.TagByDomain && o.TagBy != limit.TagByFirstEntry {
		return nil, fmt.Errorf("ratelimit: unknown hash tag choice %v", o.TagBy)
	}
	if o.Keys != KeysRLPKit && o.Keys != KeysReference {
		return nil, fmt.Errorf("ratelimit: unknown key format %v", o.Keys)
	}
	e := &Evaluator{o: o, scratch: &sync.Pool{New: func() any { return new(scratch) }}}
	return e, nil
}

// WithConfig returns an Evaluator of cfg with e's options, store and
// working memory.
func (e *Evaluator) WithConfig(cfg *Config) *Evaluator {
	return &Evaluator{o: e.o, cfg: cfg, scratch: e.scratch}
}

// Config returns the configuration e evaluates, nil when none.
func (e *Evaluator) Config() *Config { return e.cfg }

// Configured reports whether e's configuration has domain.
func (e *Evaluator) Configured(domain string) bool {
	return e.cfg != nil && e.cfg.Domain(domain) != nil
}

// item is one counter update of a request with what is needed to report it.
type item struct {
	desc     int
	node     *Node   // nil for an override
	path     []*Node // the matched nodes, nil for an override
	rule     *Rule
	override int // index of an override's rule in scratch.rules, else -1
	nth      int // index of the rule among its node's limits (rate_limits)
	stats    string
	kind     StatKind
}

// scratch is the working memory of one Evaluate, reused across calls.
type scratch struct {
	items     []item
	rules     []Rule // overrides
	match     []*Node
	paths     []*Node
	keys      []byte
	ends      []int
	updates   []counter.Update
	decisions []counter.Decision
	replaced  []string // the replaces of unlimited limits matched
	unlimited []bool   // per descriptor: matched an unlimited limit
	over      []bool   // per descriptor: a limit over that is not in shadow mode
	quota     []bool   // per descriptor: a quota descriptor

	overUpdates   []counter.Update   // countOver's
	overDecisions []counter.Decision // countOver's

	charged        []bool             // letThrough's: per update, its cost is consumed
	again          []counter.Update   // letThrough's
	againAt        []int              // letThrough's: the index of each of again in updates
	againDecisions []counter.Decision // letThrough's
}

// release returns sc to the pool, dropping what it points to.
func (e *Evaluator) release(sc *scratch) {
	clear(sc.items)
	clear(sc.paths)
	clear(sc.updates)
	clear(sc.overUpdates)
	sc.overUpdates, sc.overDecisions = sc.overUpdates[:0], sc.overDecisions[:0]
	clear(sc.again)
	sc.charged, sc.again, sc.againAt, sc.againDecisions = sc.charged[:0], sc.again[:0], sc.againAt[:0], sc.againDecisions[:0]
	sc.items, sc.rules, sc.match, sc.paths = sc.items[:0], sc.rules[:0], sc.match[:0], sc.paths[:0]
	sc.updates, sc.decisions = sc.updates[:0], sc.decisions[:0]
	sc.unlimited, sc.over, sc.quota = sc.unlimited[:0], sc.over[:0], sc.quota[:0]
	clear(sc.replaced)
	sc.replaced = sc.replaced[:0]
	e.scratch.Put(sc)
}

// grow returns s resized to n, reusing its array when it is large enough.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Evaluate decides req at now into res. It returns a
// *limit.InvalidRequestError for a request it cannot evaluate (an empty
// domain, no descriptors, a refund, an override of an unknown unit) and a
// *limit.StoreError when the store cannot answer; never a partial answer.
func (e *Evaluator) Evaluate(ctx context.Context, now time.Time, req *rlsmsg.Request, res *limit.Result) error {
	if err := check(req); err != nil {
		return err
	}
	res.Reset(len(req.Descriptors))
	var dom *Domain
	if e.cfg != nil {
		dom = e.cfg.Domain(req.Domain)
	}
	if dom == nil {
		// Overrides are ignored too, as the reference does.
		return e.metadata(res, req, nil, nil)
	}
	res.Configured = true
	sc := e.scratch.Get().(*scratch)
	defer e.release(sc)
	sc.unlimited = grow(sc.unlimited, len(req.Descriptors))
	items := e.match(sc, dom, req, res)
	if len(items) == 0 {
		return e.metadata(res, req, items, sc.unlimited)
	}
	updates := e.updates(sc, now, req, items)
	decisions := grow(sc.decisions, len(items))
	sc.decisions = decisions
	if err := e.o.Store.Update(ctx, now, updates, decisions); err != nil {
		e.counted(res, req, items, updates, nil)
		return &limit.StoreError{Err: err}
	}
	over := e.overall(sc, len(req.Descriptors), items, decisions)
	if rejectedAny(decisions) {
		if !over || e.o.ShadowMode {
			// Let through (shadow or quota mode): count it on every
			// counter that has room, deciding again from what the
			// counting found.
			var err error
			if over, err = e.letThrough(ctx, now, sc, len(req.Descriptors), items, updates, decisions); err != nil {
				return err
			}
		}
		// Let through or not, the counters that were over count it.
		e.countOver(ctx, now, sc, updates, decisions)
	}
	e.report(res, req, items, updates, decisions)
	e.reportQuota(res, sc, len(req.Descriptors))
	switch {
	case over && e.o.ShadowMode:
		res.ShadowedOverLimit = true
	case over:
		res.OverallCode = rlsmsg.CodeOverLimit
	}
	return e.metadata(res, req, items, sc.unlimited)
}

// check returns a *limit.InvalidRequestError for a request the reference
// does not evaluate, or nil.
func check(req *rlsmsg.Request) error {
	var problems []string
	if req.Domain == "" {
		problems = append(problems, "domain: rate limit domain must not be empty")
	}
	if len(req.Descriptors) == 0 {
		problems = append(problems, "descriptors: rate limit descriptor list must not be empty")
	}
	for i := range req.Descriptors {
		problems = limit.CheckDescriptor(problems, i, &req.Descriptors[i])
	}
	return limit.InvalidRequest(problems)
}

// match returns the counter updates req asks for in dom, one item each,
// and marks the unlimited descriptors in res.
func (e *Evaluator) match(sc *scratch, dom *Domain, req *rlsmsg.Request, res *limit.Result) []item {
	items := sc.items[:0]
	for i := range req.Descriptors {
		d := &req.Descriptors[i]
		if o := d.Limit; o != nil {
			var mult uint32
			if o.UnitMultiplier != nil {
				mult = *o.UnitMultiplier
			}
			sc.rules = append(sc.rules, Rule{RequestsPerUnit: o.RequestsPerUnit, Unit: o.Unit, UnitMultiplier: mult})
			it := item{desc: i, override: len(sc.rules) - 1}
			if e.o.Observe != nil {
				it.stats, it.kind = overrideStatsKey(req.Domain, d.Entries), StatOverride
			}
			items = append(items, it)
			continue
		}
		sc.match = dom.Match(d.Entries, sc.match)
		if sc.match == nil {
			continue
		}
		leaf := sc.match[len(sc.match)-1]
		if leaf.Limits[0].Unlimited {
			// Its replaces still apply, as in the reference, which
			// collects them before it skips unlimited limits.
			sc.replaced = append(sc.replaced, leaf.Limits[0].Replaces...)
			res.Statuses[i].LimitRemaining = math.MaxUint32
			sc.unlimited[i] = true
			continue
		}
		start := len(sc.paths)
		sc.paths = append(sc.paths, sc.match...)
		path := sc.paths[start:len(sc.paths):len(sc.paths)]
		stats, kind := "", StatConfigured
		if e.o.Observe != nil {
			stats, kind = statsKey(req.Domain, d.Entries, path)
		}
		for n, r := range leaf.Limits {
			items = append(items, item{desc: i, node: leaf, path: path, rule: r, override: -1, nth: n, stats: stats, kind: kind})
		}
	}
	for k := range items {
		if items[k].override >= 0 {
			items[k].rule = &sc.rules[items[k].override] // sc.rules no longer grows
		}
	}
	items = dropReplaced(items, sc.replaced)
	sc.items = items
	return items
}

// updates returns the counter updates of items. Every key is built in one
// buffer and the updates take strings over it: the store does not keep
// keys beyond Update (counter.Store's contract).
func (e *Evaluator) updates(sc *scratch, now time.Time, req *rlsmsg.Request, items []item) []counter.Update {
	sc.keys = sc.keys[:0]
	ends := sc.ends[:0]
	for _, it := range items {
		if e.o.Keys == KeysReference {
			sc.keys = appendReferenceKey(sc.keys, req.Domain, req.Descriptors[it.desc].Entries, it, now)
		} else {
			sc.keys = appendCounterKey(sc.keys, e.o.TagBy, req.Domain, req.Descriptors[it.desc].Entries, it)
		}
		ends = append(ends, len(sc.keys))
	}
	sc.ends = ends
	updates := grow(sc.updates, len(items))
	from := 0
	for k, it := range items {
		d := &req.Descriptors[it.desc]
		updates[k] = counter.Update{Key: unsafe.String(&sc.keys[from], ends[k]-from), Policy: it.rule.policy(), Cost: limit.Cost(req, d)}
		from = ends[k]
	}
	sc.updates = updates
	return updates
}

// dropReplaced removes the items whose limit is named in the replaces list
// of another matched limit, or in replaced (those of unlimited limits).
func dropReplaced(items []item, replaced []string) []item {
	var names map[string]bool
	for _, n := range replaced {
		if names == nil {
			names = map[string]bool{}
		}
		names[n] = true
	}
	for _, it := range items {
		for _, n := range it.rule.Replaces {
			if names == nil {
				names = map[string]bool{}
			}
			names[n] = true
		}
	}
	if names == nil {
		return items
	}
	out := items[:0]
	for _, it := range items {
		if it.rule.Name != "" && names[it.rule.Name] {
			continue
		}
		out = append(out, it)
	}
	return out
}

// overall reports whether the request is over, as the reference counts
// descriptors (not limits): a descriptor is over when one of its limits is
// over and not in shadow mode (whose status is OK); the request is over
// when a descriptor that is not a quota is over, or when it has quota
// descriptors and every one is over. Unlimited descriptors do not count;
// with Options.QuotaMode every other descriptor is a quota, a matched one
// or not.
func (e *Evaluator) overall(sc *scratch, n int, items []item, decisions []counter.Decision) bool {
	over, quota := grow(sc.over, n), grow(sc.quota, n)
	sc.over, sc.quota = over, quota
	for k, it := range items {
		if it.node != nil && it.node.QuotaMode {
			quota[it.desc] = true
		}
		if !decisions[k].Allowed && (it.node == nil || !it.node.ShadowMode) {
			over[it.desc] = true
		}
	}
	quotas, quotasOver := 0, 0
	for i := range n {
		switch {
		case sc.unlimited[i]:
			continue
		case !e.o.QuotaMode && !quota[i]:
			if over[i] {
				return true
			}
			continue
		}
		quotas++
		if over[i] {
			quotasOver++
		}
	}
	return quotas > 0 && quotas == quotasOver
}

// reportQuota sets res.Quota from overall's view of the descriptors, when
// any is a quota.
func (e *Evaluator) reportQuota(res *limit.Result, sc *scratch, n int) {
	for i := range n {
		if q := sc.quota[i] || e.o.QuotaMode && !sc.unlimited[i]; q || len(res.Quota) > 0 {
			if len(res.Quota) == 0 {
				res.Quota = append(res.Quota[:0], make([]bool, i)...)
			}
			res.Quota = append(res.Quota, q)
		}
	}
}

func rejectedAny(decisions []counter.Decision) bool {
	for _, d := range decisions {
		if !d.Allowed {
			return true
		}
	}
	return false
}

// report writes the statuses and the counters, and calls the observer.
func (e *Evaluator) report(res *limit.Result, req *rlsmsg.Request, items []item, updates []counter.Update, decisions []counter.Decision) {
	limits := e.counted(res, req, items, updates, decisions)
	chosen := make([]int, len(res.Statuses))
	for i := range chosen {
		chosen[i] = -1
	}
	for k, it := range items {
		dec := &decisions[k]
		if c := chosen[it.desc]; c < 0 || worse(dec, &decisions[c]) {
			chosen[it.desc] = k
		}
		if e.o.Observe != nil {
			e.o.Observe(Stat{Domain: req.Domain, Key: it.stats, Kind: it.kind}, e.counts(it, updates[k].Cost, dec))
		}
	}
	for i, k := range chosen {
		if k < 0 {
			continue
		}
		it, dec := items[k], &decisions[k]
		st := &res.Statuses[i]
		st.CurrentLimit = &limits[k]
		st.LimitRemaining = uint32(min(dec.Remaining, math.MaxUint32))
		st.DurationUntilReset, st.HasDurationUntilReset = ceilSecond(dec.ResetAfter), true
		switch {
		case dec.Allowed:
			st.Code = rlsmsg.CodeOK
		case it.node != nil && it.node.ShadowMode:
			st.Code, st.LimitRemaining = rlsmsg.CodeOK, 0
		default:
			// As the reference: an over-limit descriptor reports none
			// left, even when its cost alone was more than what was.
			st.Code, st.LimitRemaining = rlsmsg.CodeOverLimit, 0
		}
	}
}

// counted lists items in res.Counters, with their decisions (none when
// decisions is nil: the store failed), and returns the limits reported.
func (e *Evaluator) counted(res *limit.Result, req *rlsmsg.Request, items []item, updates []counter.Update, decisions []counter.Decision) []rlsmsg.RateLimit {
	limits := make([]rlsmsg.RateLimit, len(items))
	for k, it := range items {
		r := it.rule
		limits[k] = rlsmsg.RateLimit{Name: r.Name, RequestsPerUnit: r.RequestsPerUnit, Unit: r.Unit}
		if r.UnitMultiplier > 1 {
			limits[k].UnitMultiplier = r.UnitMultiplier
		}
		c := limit.Counted{Descriptor: it.desc, Limit: &limits[k], Override: it.node == nil, Cost: updates[k].Cost, Name: metricName(req.Domain, it)}
		if decisions != nil {
			c.Decision = decisions[k]
		}
		res.Counters = append(res.Counters, c)
	}
	return limits
}

// metricName is the name of an item's limit in metrics: its rate_limit
// name, else its configured path below the domain ("key_value.key"),
// never a value of the request; empty for an override.
func metricName(domain string, it item) string {
	switch {
	case it.node == nil:
		return ""
	case it.rule.Name != "":
		return it.rule.Name
	}
	return strings.TrimPrefix(it.node.StatsKey, domain+".")
}

// worse reports whether decision a describes a descriptor better than b: an
// over-limit one, else the least remaining.
func worse(a, b *counter.Decision) bool {
	if a.Allowed != b.Allowed {
		return !a.Allowed
	}
	return a.Remaining < b.Remaining
}

// counts is one item's statistics.
func (e *Evaluator) counts(it item, cost uint64, d *counter.Decision) RuleCounts {
	if e.o.Keys == KeysReference || !d.Allowed && cost > 0 && it.rule.Algorithm == counter.AlgorithmFixedWindow {
		// The reference's counter, or one counting its rejected hits
		// as the reference's does (countOver): the reference's split.
		return e.referenceCounts(it, cost, d)
	}
	c := RuleCounts{TotalHits: cost}
	if !d.Allowed {
		c.OverLimit = cost
		if it.node != nil && it.node.ShadowMode {
			c.ShadowMode = cost
		}
		return c
	}
	c.WithinLimit = cost
	// In single precision, as the reference reads NEAR_LIMIT_RATIO and
	// multiplies it (0.29 of 100 is 29 there, 28 in double precision).
	threshold := uint64(math.Floor(float64(float32(it.rule.RequestsPerUnit) * float32(e.o.NearLimitRatio))))
	if used := uint64(d.Used); cost > 0 && used > threshold {
		c.NearLimit = min(cost, used-threshold)
	}
	return c
}

// ceilSecond rounds d up to whole seconds, as the reference reports the
// time to the end of an epoch-aligned window.
func ceilSecond(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return (d + time.Second - 1) / time.Second * time.Second
}

// appendCounterKey appends an item's counter key to b: the hash tag (see
// limit.TagBy), "R", the window in seconds, ":", the algorithm's name, ":",
// the number of entries, ":", then each entry's key and value
// length-prefixed (limit.AppendString), so that no two descriptors share a
// key unless they have the same entries:
//
//	{domain}R60:fixed_window:2:4:user5:alice4:path2:/x
//
// The second and later limits of a node's rate_limits add "/" and their
// index after the algorithm ("R60:fixed_window/1:..."), so that two of them
// with the same window never share a counter; the first keeps the key a
// rate_limit has.
//
// An entry matched by a share_threshold node is written as the node's
// pattern, so that every value it matches shares the counter, this node's
// and its children's; the first-entry hash tag takes the pattern too.
func appendCounterKey(b []byte, tagBy limit.TagBy, domain string, entries []rlsmsg.Entry, it item) []byte {
	if tagBy == limit.TagByFirstEntry && len(entries) > 0 {
		b = limit.AppendEntryTag(b, domain, entries[0].Key, keyValue(entries, it.path, 0))
	} else {
		b = limit.AppendTag(b, domain)
	}
	b = append(b, 'R')
	b = strconv.AppendInt(b, int64(it.rule.Window()/time.Second), 10)
	b = append(b, ':')
	b = append(b, it.rule.Algorithm.String()...)
	if it.nth > 0 {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(it.nth), 10)
	}
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(len(entries)), 10)
	b = append(b, ':')
	for i := range entries {
		b = limit.AppendString(b, entries[i].Key)
		b = limit.AppendString(b, keyValue(entries, it.path, i))
	}
	return b
}

// keyValue is the value entry i is counted under: its own, or the pattern of
// the share_threshold node that matched it.
func keyValue(entries []rlsmsg.Entry, path []*Node, i int) string {
	if path != nil && path[i].ShareThreshold {
		return path[i].Value
	}
	return entries[i].Value
}
