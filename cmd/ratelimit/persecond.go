package main

import (
	"context"
	"fmt"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// isPerSecond reports whether u counts a per-second limit, kept in the
// per-second Redis with REDIS_PERSECOND=true: one whose window is shorter
// than a minute (unit second, with a unit_multiplier below 60; the
// reference, without multipliers, sends exactly its unit: second limits
// there).
func isPerSecond(u *counter.Update) bool { return u.Policy.Window < time.Minute }

// perSecondStore decides a request whose counters live in two Redis
// (REDIS_PERSECOND=true): the per-second ones in perSecond, the others in
// other. A request with counters in one of them is one Update there, all
// or nothing as always. One with counters in both is decided in two
// steps, the per-second Redis first:
//
//   - when the per-second Redis refuses, nothing is charged in either:
//     the other Redis decides its counters in a batch that a refusing
//     update joins, so that it charges nothing and its decisions are the
//     ones a single store would give (the allowed ones as checks);
//   - when it admits, the other Redis decides its counters; if it
//     refuses, the per-second hits stay charged (their decisions are
//     marked counter.Decision.PartAdmitted) and expire with their window,
//     within the second (or the few seconds of a multiplied window).
//
// Deciding the per-second counters first keeps the one inexactness in
// the shortest windows: a request refused by a minute, hour or day limit
// may have spent one second's hits, never the other way round.
type perSecondStore struct {
	perSecond, other counter.Store
}

var _ counter.Store = perSecondStore{}

func (s perSecondStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	if len(decisions) < len(updates) {
		return fmt.Errorf("per-second store: %d decisions for %d updates", len(decisions), len(updates))
	}
	var fast, slow []int // indexes of the per-second updates, of the others
	for i := range updates {
		if isPerSecond(&updates[i]) {
			fast = append(fast, i)
		} else {
			slow = append(slow, i)
		}
	}
	switch {
	case len(slow) == 0:
		return s.perSecond.Update(ctx, now, updates, decisions)
	case len(fast) == 0:
		return s.other.Update(ctx, now, updates, decisions)
	}
	fastU, fastD := pick(updates, fast), make([]counter.Decision, len(fast))
	if err := s.perSecond.Update(ctx, now, fastU, fastD); err != nil {
		return fmt.Errorf("per-second Redis: %w", err)
	}
	fastAdmitted := allAllowed(fastD)
	slowU := pick(updates, slow)
	if !fastAdmitted {
		slowU = append(slowU, refusals(slowU)...)
	}
	slowD := make([]counter.Decision, len(slowU))
	if err := s.other.Update(ctx, now, slowU, slowD); err != nil {
		return err
	}
	slowD = slowD[:len(slow)]
	partly := fastAdmitted && !allAllowed(slowD)
	for j, i := range fast {
		decisions[i] = fastD[j]
		decisions[i].PartAdmitted = fastD[j].PartAdmitted || partly
	}
	for j, i := range slow {
		decisions[i] = slowD[j]
	}
	return nil
}

// pick returns updates at the indexes idx, in order.
func pick(updates []counter.Update, idx []int) []counter.Update {
	out := make([]counter.Update, len(idx))
	for j, i := range idx {
		out[j] = updates[i]
	}
	return out
}

func allAllowed(ds []counter.Decision) bool {
	for i := range ds {
		if !ds[i].Allowed {
			return false
		}
	}
	return true
}

// refusals returns, for each Redis Cluster hash tag of updates, one update
// that is always refused (a limit of 0 on the tag's first key), so that a
// batch holding them changes no counter, even one a store decides per tag
// (limit/redis Options.SplitHashTags). Appended last, it changes no other
// update's decision; refused, it writes nothing.
func refusals(updates []counter.Update) []counter.Update {
	seen := map[string]bool{}
	var out []counter.Update
	for _, u := range updates {
		tag := redis.HashTag(u.Key)
		if seen[tag] {
			continue
		}
		seen[tag] = true
		p := u.Policy
		p.Max = 0
		out = append(out, counter.Update{Key: u.Key, Policy: p, Cost: 1})
	}
	return out
}
