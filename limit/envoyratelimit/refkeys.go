package envoyratelimit

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// KeyFormat chooses the counter keys an Evaluator builds (Options.Keys).
type KeyFormat uint8

const (
	// KeysRLPKit, the default, builds rlpkit's keys: a Redis Cluster hash
	// tag, the window and algorithm, then every entry length-prefixed
	// (see appendCounterKey), for an all-or-nothing store.
	KeysRLPKit KeyFormat = iota
	// KeysReference builds envoyproxy/ratelimit's keys, byte for byte as
	// its cache key generator writes them without CACHE_KEY_PREFIX (which
	// the store prepends): the domain, "_", each entry's key, "_", value
	// (a share_threshold node's pattern for the entries it matched), "_",
	// then the window's start in Unix seconds:
	//
	//	messaging_message_type_marketing_to_number_2061111111_1779926400
	//
	// A store of such keys counts as the reference does
	// (limit/redis/refcount): every descriptor on its own, rejected hits
	// included, so that a fleet running the reference and rlpkit on one
	// Redis shares every budget. The evaluator then splits a rejected
	// request's hits into over_limit and near_limit as the reference does
	// (see Options.Keys). Keys carry no hash tag (Options.TagBy is not
	// used). The second and later limits of a node's rate_limits, which
	// the reference does not have, add "/" and their index after the
	// window start, a key no reference instance writes.
	KeysReference
)

// String returns "rlpkit" or "reference", the values of cmd/ratelimit's
// RLPKIT_REDIS_KEYS.
func (f KeyFormat) String() string {
	switch f {
	case KeysRLPKit:
		return "rlpkit"
	case KeysReference:
		return "reference"
	}
	return fmt.Sprintf("KeyFormat(%d)", uint8(f))
}

// appendReferenceKey appends an item's counter key in the reference's
// format (see KeysReference) at now to b.
func appendReferenceKey(b []byte, domain string, entries []rlsmsg.Entry, it item, now time.Time) []byte {
	b = append(b, domain...)
	b = append(b, '_')
	for i := range entries {
		b = append(b, entries[i].Key...)
		b = append(b, '_')
		b = append(b, keyValue(entries, it.path, i)...)
		b = append(b, '_')
	}
	b = strconv.AppendInt(b, windowStart(now, it.rule.Window()), 10)
	if it.nth > 0 {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(it.nth), 10)
	}
	return b
}

// windowStart is the start, in Unix seconds, of the epoch-aligned window
// of length w holding now, as the reference computes it from the current
// second.
func windowStart(now time.Time, w time.Duration) int64 {
	sec, div := now.Unix(), int64(w/time.Second)
	if div <= 0 {
		return sec
	}
	q := sec / div
	if sec%div < 0 {
		q--
	}
	return q * div
}

// referenceCounts is one item's statistics as the reference counts them
// over counters that take rejected hits too: of a request taking its
// counter from before to after (Decision.Used) past the limit, the hits up
// to the limit are near_limit (those above the near-limit threshold) and
// the rest over_limit; shadow_mode counts the over_limit ones of a
// shadow_mode rule. The threshold is computed in float32, as the reference
// computes it.
func (e *Evaluator) referenceCounts(it item, cost uint64, d *counter.Decision) RuleCounts {
	limit := uint64(it.rule.RequestsPerUnit)
	after := uint64(d.Used)
	before := after - cost // wraps as the reference's does when after < cost
	threshold := uint64(math.Floor(float64(float32(limit) * float32(e.o.NearLimitRatio))))
	c := RuleCounts{TotalHits: cost}
	if !d.Allowed {
		c.OverLimit = cost
		if before < limit && after > limit {
			c.OverLimit = after - limit
			c.NearLimit = limit - max(threshold, before)
		}
		if it.node != nil && it.node.ShadowMode {
			c.ShadowMode = c.OverLimit
		}
		return c
	}
	c.WithinLimit = cost
	if after > threshold {
		c.NearLimit = cost
		if before < threshold {
			c.NearLimit = after - threshold
		}
	}
	return c
}

// referenceKeyErrors returns a *LoadError for every limit that the
// reference's Redis counting cannot keep (KeysReference): an algorithm
// other than the fixed window.
func referenceKeyErrors(c *Config) []error {
	var errs []error
	for _, d := range c.Domains() {
		errs = appendReferenceKeyErrors(errs, d.Descriptors(), "")
	}
	return errs
}

func appendReferenceKeyErrors(errs []error, nodes []*Node, parent string) []error {
	nth := map[string]int{} // a node's index among its file's siblings
	for _, n := range nodes {
		path := fmt.Sprintf("%sdescriptors[%d]", parent, nth[n.File])
		nth[n.File]++
		for j, r := range n.Limits {
			if r.Algorithm == counter.AlgorithmFixedWindow {
				continue
			}
			field := path + ".rate_limit.algorithm"
			if len(n.Limits) > 1 {
				field = fmt.Sprintf("%s.rate_limits[%d].algorithm", path, j)
			}
			errs = append(errs, &LoadError{File: n.File, Line: n.Line, Path: field,
				Msg: fmt.Sprintf("algorithm %s cannot be counted with the reference's Redis keys, which count fixed windows only", r.Algorithm)})
		}
		errs = appendReferenceKeyErrors(errs, n.Children(), path+".")
	}
	return errs
}
