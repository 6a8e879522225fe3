package redis

import (
	"context"
	_ "embed"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

//go:embed adjust.lua
var adjustBody string

// adjustScript is the script of Adjust, after the prelude update.lua
// shares (reading the keys, integer division, expiries).
var adjustScript = goredis.NewScript(preludeLua + adjustBody)

var _ counter.Adjuster = (*Store)(nil)

// Adjust implements counter.Adjuster: one script run per hash tag (one in
// all on a standalone server), each applying its adjustments in order and
// atomically, as counter.Policy.Adjust does over the stored states. It is
// not a pipelined call as Update's are: reports are answered after the
// response, off the request's path. Errors are those of Update, plus the
// algorithms Policy.Adjust refuses (wrapping counter.ErrAdjustAlgorithm).
func (s *Store) Adjust(ctx context.Context, now time.Time, adjustments []counter.Adjustment) error {
	for i := range adjustments {
		a := &adjustments[i]
		if err := a.Policy.Validate(); err != nil {
			return fmt.Errorf("limit/redis: adjustment %d (key %q): %w", i, a.Key, err)
		}
		if a.Policy.Algorithm != counter.AlgorithmFixedWindow && a.Policy.Algorithm != counter.AlgorithmSlidingWindow {
			return fmt.Errorf("limit/redis: adjustment %d (key %q): %s: %w", i, a.Key, a.Policy.Algorithm, counter.ErrAdjustAlgorithm)
		}
	}
	if len(adjustments) == 0 {
		return nil
	}
	nowUs := now.UnixMicro()
	if !s.serverTime && (nowUs < 0 || nowUs >= maxNowMicros) {
		return fmt.Errorf("limit/redis: instant %v is outside the range the store computes exactly (1970 to 2112)", now)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("limit/redis: %w", err)
	}
	if err := s.breaker.Err(); err != nil {
		return err
	}
	ctx = bound(ctx)
	groups := [][]counter.Adjustment{adjustments}
	if s.sharded {
		idx := script.ByHashTag(len(adjustments), func(i int) string { return adjustments[i].Key })
		groups = make([][]counter.Adjustment, len(idx))
		for g, is := range idx {
			for _, i := range is {
				groups[g] = append(groups[g], adjustments[i])
			}
		}
	}
	for _, g := range groups {
		if err := s.adjust(ctx, nowUs, g); err != nil {
			s.breaker.Report(err)
			return fmt.Errorf("limit/redis: adjust %d counters: %w", len(g), err)
		}
	}
	return nil
}

// adjust runs the script once for adjustments, whose keys share a hash tag.
func (s *Store) adjust(ctx context.Context, nowUs int64, adjustments []counter.Adjustment) error {
	var keys []string
	index := make(map[string]int, len(adjustments))
	servertime := 0.0
	if s.serverTime {
		servertime = 1
	}
	args := putDoubles(nil, float64(nowUs), servertime, float64(s.marginMs), float64(len(adjustments)))
	for _, a := range adjustments {
		k, ok := index[a.Key]
		if !ok {
			keys = append(keys, s.prefix+a.Key)
			k = len(keys)
			index[a.Key] = k
		}
		alg := float64(a.Policy.Algorithm)
		if a.Policy.Algorithm == counter.AlgorithmFixedWindow && a.Policy.FirstHit {
			alg = 4
		}
		var rb float64
		if !a.ReleaseBefore.IsZero() {
			rb = float64(max(a.ReleaseBefore.UnixMicro(), 1))
		}
		w := max(min(a.Policy.Window, counter.MaxWindow).Microseconds(), 1)
		delta := max(min(a.Delta, counter.MaxPolicyValue), -counter.MaxPolicyValue)
		args = putDoubles(args, float64(k), alg, float64(w), float64(delta), rb)
	}
	reply, err := adjustScript.Run(ctx, s.client, keys, string(args)).Text()
	if err != nil {
		return err
	}
	if reply != "ok" {
		return fmt.Errorf("a key of %q does not hold a counter state", keys)
	}
	return nil
}

// putDoubles appends vs as little-endian IEEE doubles.
func putDoubles(b []byte, vs ...float64) []byte {
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}
