package envoyratelimit

import (
	"context"
	"time"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// letThrough counts a request whose first Store.Update was refused only by
// limits that do not refuse the request (a shadow_mode rule, a quota
// descriptor over while another quota descriptor has room, or any limit
// under Options.ShadowMode): every counter that had room is charged, in one
// Store.Update of those counters alone, all or nothing as always.
//
// Between the two calls, concurrent requests may have taken that room. The
// store then refuses the batch, charges nothing, and says which counters
// are now over; the request is decided again from those decisions. Over
// (and not under Options.ShadowMode), it is answered OVER_LIMIT, having
// been charged nothing (but what a store deciding in parts admitted, see
// below). Still let through, the counters that still have
// room are charged in another Store.Update, and so on. A refused call turns
// at least one counter from allowed to rejected, so this ends within one
// call per update plus one. The answer is the last call's: a request let
// through has been charged on every counter it is reported within, in the
// call that decided it, so that concurrent requests never pass an enforced
// limit. Counters a store admitted in parts (counter.Decision.PartAdmitted)
// are charged already and are not sent again.
//
// It returns whether the request is over (overall), from the final
// decisions, and a *limit.StoreError when a call fails.
func (e *Evaluator) letThrough(ctx context.Context, now time.Time, sc *scratch, n int, items []item, updates []counter.Update, decisions []counter.Decision) (bool, error) {
	charged := grow(sc.charged, len(updates))
	sc.charged = charged
	for k := range decisions {
		charged[k] = decisions[k].Allowed && decisions[k].PartAdmitted
	}
	for range len(updates) + 1 {
		again, at := sc.again[:0], sc.againAt[:0]
		cost := false
		for k := range decisions {
			if decisions[k].Allowed && !charged[k] {
				// Checks (cost 0) go too, so that the answer is
				// decided at one instant.
				again, at = append(again, updates[k]), append(at, k)
				cost = cost || updates[k].Cost > 0
			}
		}
		sc.again, sc.againAt = again, at
		if !cost {
			break
		}
		ds := grow(sc.againDecisions, len(again))
		sc.againDecisions = ds
		if err := e.o.Store.Update(ctx, now, again, ds); err != nil {
			return false, &limit.StoreError{Err: err}
		}
		admitted := !rejectedAny(ds)
		for j, k := range at {
			decisions[k] = ds[j]
			charged[k] = ds[j].Allowed && (admitted || ds[j].PartAdmitted)
		}
		if admitted {
			break
		}
		if e.overall(sc, n, items, decisions) && !e.o.ShadowMode {
			return true, nil
		}
	}
	return e.overall(sc, n, items, decisions), nil
}
