package redis

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// modelPolicies are the policies the model tests draw from: every algorithm
// and sliding-window mode, the smallest and largest windows and maxima.
var modelPolicies = []counter.Policy{
	{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 1, Window: time.Microsecond},
	{Algorithm: counter.AlgorithmFixedWindow, Max: counter.MaxPolicyValue, Window: counter.MaxWindow},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 0, Window: time.Second},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 7, Window: 3 * time.Second, FirstHit: true},
	{Algorithm: counter.AlgorithmFixedWindow, Max: 1, Window: time.Microsecond, FirstHit: true},
	{Algorithm: counter.AlgorithmFixedWindow, Max: counter.MaxPolicyValue, Window: counter.MaxWindow, FirstHit: true},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 5, Window: 1500 * time.Microsecond},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: counter.MaxPolicyValue, Window: 100 * 365 * 24 * time.Hour},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 7, Window: 3 * time.Second, Weighted: true, Weight: 50},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 12, Window: 500 * time.Millisecond, Weighted: true, Weight: 100},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 3, Window: 2 * time.Second, Weighted: true, Weight: 0},
	{Algorithm: counter.AlgorithmSlidingWindow, Max: 10, Window: 2500 * time.Millisecond, Weighted: true, Weight: 33},
	{Algorithm: counter.AlgorithmTokenBucket, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmTokenBucket, Max: 3, Window: 10 * time.Microsecond},
	{Algorithm: counter.AlgorithmTokenBucket, Max: 1000, Window: time.Hour},
	{Algorithm: counter.AlgorithmTokenBucket, Max: counter.MaxPolicyValue, Window: counter.MaxWindow},
	{Algorithm: counter.AlgorithmGCRA, Max: 7, Window: 3 * time.Second},
	{Algorithm: counter.AlgorithmGCRA, Max: 2, Window: 7 * time.Microsecond},
	{Algorithm: counter.AlgorithmGCRA, Max: counter.MaxPolicyValue, Window: counter.MaxWindow},
}

// model is the Store contract written out over a map, with
// counter.Policy.Decide doing the counting: what the script must reproduce.
type model struct {
	states map[string]counter.State
}

func (m *model) update(now time.Time, updates []counter.Update) []counter.Decision {
	work := map[string]counter.State{}
	for _, u := range updates {
		work[u.Key] = m.states[u.Key]
	}
	ds := make([]counter.Decision, len(updates))
	all := true
	for i, u := range updates {
		work[u.Key], ds[i] = u.Policy.Decide(work[u.Key], now, u.Cost)
		all = all && ds[i].Allowed
	}
	if !all {
		for i, u := range updates {
			if ds[i].Allowed {
				_, ds[i] = u.Policy.Decide(m.states[u.Key], now, 0)
			}
		}
		return ds
	}
	for _, u := range updates {
		if u.Cost > 0 {
			m.states[u.Key] = work[u.Key]
		}
	}
	return ds
}

// modelRun drives a Store and the model with the same batches and compares
// the decisions and, after each batch, the states stored in Redis.
type modelRun struct {
	t      testing.TB
	c      goredis.UniversalClient
	store  *Store
	prefix string
	m      model
	keys   []string
}

var modelRuns atomic.Int64

func newModelRun(t testing.TB, c goredis.UniversalClient, keys int) *modelRun {
	prefix := fmt.Sprintf("model%d:", modelRuns.Add(1))
	r := &modelRun{t: t, c: c, store: newStore(t, c, Options{KeyPrefix: prefix}), prefix: prefix, m: model{states: map[string]counter.State{}}}
	for k := range keys {
		r.keys = append(r.keys, fmt.Sprintf("{m}k%d", k))
	}
	return r
}

func (r *modelRun) step(now time.Time, updates []counter.Update) {
	r.t.Helper()
	want := r.m.update(now, updates)
	got := make([]counter.Decision, len(updates))
	if err := r.store.Update(context.Background(), now, updates, got); err != nil {
		r.t.Fatalf("Update(t=%d, %+v): %v", now.UnixMicro(), updates, err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		r.t.Fatalf("Update(t=%d, %+v) decisions (-model +store):\n%s", now.UnixMicro(), updates, diff)
	}
	r.checkStates(fmt.Sprintf("Update(t=%d, %+v)", now.UnixMicro(), updates))
}

// checkStates compares the states stored in Redis with the model's, after
// what names.
func (r *modelRun) checkStates(what string) {
	r.t.Helper()
	for _, k := range r.keys {
		var st counter.State // the zero state when the key holds none
		raw, err := r.c.Get(context.Background(), r.prefix+k).Result()
		if err == nil {
			st, err = script.ParseState(raw)
		}
		if err != nil && err != goredis.Nil {
			r.t.Fatalf("GET %s: %v", k, err)
		}
		if want := r.m.states[k]; st != want {
			r.t.Fatalf("after %s: key %s holds %+v, want %+v", what, k, st, want)
		}
	}
}

// TestMatchesModel compares the store with the model over random batches:
// every algorithm, repeated keys, checks, costs beyond any max, stale
// instants, windows from 1µs to MaxWindow.
//
// The fixed-window seeds draw fixed windows only, so that every batch runs
// fixed.lua rather than update.lua.
func TestMatchesModel(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	var fixed []counter.Policy
	for _, p := range modelPolicies {
		if p.Algorithm == counter.AlgorithmFixedWindow {
			fixed = append(fixed, p)
		}
	}
	for seed := range uint64(6) {
		policies, name := modelPolicies, fmt.Sprint("seed ", seed)
		if seed >= 4 {
			policies, name = fixed, fmt.Sprint("fixed-window seed ", seed)
		}
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			r := newModelRun(t, c, 4)
			policyOf := make([]counter.Policy, len(r.keys))
			for k := range policyOf {
				policyOf[k] = policies[rng.IntN(len(policies))]
			}
			now := time.Unix(1_699_920_000, 0)
			for range 1500 {
				switch rng.IntN(20) {
				case 0:
					now = now.Add(time.Duration(rng.Int64N(int64(time.Hour))))
				case 1:
					now = now.Add(-time.Duration(rng.Int64N(int64(3 * time.Second)))) // stale
				default:
					now = now.Add(time.Duration(rng.Int64N(int64(400 * time.Millisecond))))
				}
				if rng.IntN(50) == 0 { // sometimes a key changes policy
					policyOf[rng.IntN(len(policyOf))] = policies[rng.IntN(len(policies))]
				}
				updates := make([]counter.Update, 1+rng.IntN(5))
				for i := range updates {
					k := rng.IntN(len(r.keys))
					cost := uint64(rng.IntN(4))
					switch rng.IntN(40) {
					case 0:
						cost = math.MaxUint64
					case 1:
						cost = counter.MaxPolicyValue + uint64(rng.IntN(3))
					}
					updates[i] = counter.Update{Key: r.keys[k], Policy: policyOf[k], Cost: cost}
				}
				r.step(now, updates)
			}
		})
	}
}

// FuzzUpdate compares the store with the model over batches decoded from
// the input: per step a byte of instant advance, then batch entries of
// (key, policy, cost).
func FuzzUpdate(f *testing.F) {
	f.Add([]byte{0, 0x10, 0, 1, 2})
	f.Add([]byte{3, 0x21, 4, 1, 4, 1, 9, 0xff, 9, 0, 200, 0x31, 11, 3, 11, 3, 11, 3})
	f.Add([]byte{5, 0x12, 15, 2, 16, 1, 129, 0x12, 15, 2, 16, 1, 7, 0x40, 17, 254, 17, 1})
	f.Add([]byte{1, 0x33, 7, 1, 8, 2, 10, 3, 250, 0x33, 7, 1, 8, 2, 10, 3, 90, 0x11, 5, 255})
	srv := redistest.Start(f)
	c := newClient(f, srv)
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newModelRun(t, c, 4)
		now := time.Unix(1_699_920_000, 0)
		for len(in) >= 2 {
			adv, head := in[0], in[1]
			in = in[2:]
			// adv: high bit stale, else a step of adv^2 * 50µs.
			step := time.Duration(adv&0x7f) * time.Duration(adv&0x7f) * 50 * time.Microsecond
			if adv&0x80 != 0 {
				now = now.Add(-step)
			} else {
				now = now.Add(step)
			}
			n := int(head&0x03) + 1
			var updates []counter.Update
			for range n {
				if len(in) < 2 {
					break
				}
				pb, cb := in[0], in[1]
				in = in[2:]
				cost := uint64(cb & 0x03)
				if cb >= 250 {
					cost = counter.MaxPolicyValue - 2 + uint64(cb-250)
				}
				updates = append(updates, counter.Update{
					Key:    r.keys[int(head>>4)%len(r.keys)^int(pb>>6)],
					Policy: modelPolicies[int(pb)%len(modelPolicies)],
					Cost:   cost,
				})
			}
			if len(updates) > 0 {
				r.step(now, updates)
			}
		}
	})
}
