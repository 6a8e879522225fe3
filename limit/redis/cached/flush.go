package cached

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

//go:embed flush.lua
var flushLua string

// flushScript adds a flush's hits and returns the counters' states, by its
// SHA-1 (EVALSHA), falling back to EVAL when the server has not cached it.
var flushScript = goredis.NewScript(flushLua)

// record is one counter's part of a flush.
type record struct {
	key   string // as kept in s.counters
	start int64  // the window the hits were counted in
	hits  uint64
	ttlMs int64
	first int64         // the window in µs when it starts at the first hit, else 0
	state counter.State // the state Redis returned
	bad   error         // the key holds no counter state: its hits cannot be written
	err   error         // the script call of its hash tag failed
}

// Flush writes every pending hit to Redis and refreshes the view of the
// counters it wrote from the states Redis returns, in one round trip: one
// script call on a standalone server, or on a Cluster one per hash tag in
// one pipeline. Flushes run one at a time; a Flush waits for the one under
// way (or ctx) first. When it fails, the hits stay pending for the next
// flush and the store is down (Update decides without waiting for Redis)
// until a flush succeeds; on a Cluster, a call of one hash tag that fails
// leaves only that tag's hits pending, the others being written and
// acknowledged. A key that holds no counter state (another type, another
// string) fails neither the flush nor the others' hits: its own hits,
// which cannot be written, are dropped, and the Updates that touch it
// afterwards go to the exact store, which fails them naming the key until
// it holds a counter again. A Flush with nothing pending does nothing. With
// Options.Redis.Breaker, a flush while Redis is known down fails at once,
// without a round trip, and a failed one is reported to the Breaker.
func (s *Store) Flush(ctx context.Context) error {
	select {
	case s.flushing <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("limit/redis/cached: flush: %w", ctx.Err())
	}
	defer func() { <-s.flushing }()

	recs := s.takePending()
	if len(recs) == 0 {
		return nil
	}
	if err := s.breaker.Err(); err != nil {
		return s.failed(recs, err) // known down: not tried
	}
	err := s.write(ctx, recs)
	if err == nil {
		s.succeeded(recs, true)
		return nil
	}
	s.breaker.Report(err)
	var done, lost []record
	for _, r := range recs {
		if r.err != nil {
			lost = append(lost, r)
		} else {
			done = append(done, r)
		}
	}
	s.succeeded(done, false)
	return s.failed(lost, err)
}

// takePending moves every counter's pending hits in flight and returns
// them, one record a counter.
func (s *Store) takePending() []record {
	s.mu.Lock()
	recs := make([]record, 0, s.dirty)
	for k, e := range s.counters {
		if e.pending == 0 {
			continue
		}
		// The key lives until its window ends, on the clock of the
		// Updates (a flush may run later than the last of them), plus
		// the margin for clocks that differ.
		r := record{key: k, start: e.start, hits: e.pending, ttlMs: max(ceilMillis(e.start+e.window-s.lastNow), 1) + s.marginMs}
		if e.firstHit {
			r.first = e.window
		}
		recs = append(recs, r)
		e.inflight, e.pending = e.pending, 0
	}
	s.dirty = 0
	s.mu.Unlock()
	return recs
}

// failed makes the hits of a flush that failed with err pending again and
// the store down, and returns the flush's error.
func (s *Store) failed(recs []record, err error) error {
	s.mu.Lock()
	was := s.down
	s.flushErrors.Add(1)
	s.down = true
	for i := range recs {
		r := &recs[i]
		if e := s.counters[r.key]; e != nil && e.start == r.start && e.inflight == r.hits {
			if e.pending == 0 {
				s.dirty++
			}
			e.inflight, e.pending = 0, e.pending+r.hits
		}
	}
	s.mu.Unlock()
	err = fmt.Errorf("limit/redis/cached: flush %d counters: %w", len(recs), err)
	if !was && s.onChange != nil {
		s.onChange(true, err)
	}
	return err
}

// succeeded updates the counters of recs, written by a flush, from the
// states Redis returned and, when the whole flush succeeded (up), marks the
// store up.
func (s *Store) succeeded(recs []record, up bool) {
	s.mu.Lock()
	was := s.down
	defer func() {
		if up && was && s.onChange != nil {
			s.onChange(false, nil)
		}
	}()
	defer s.mu.Unlock()
	if up {
		s.flushes.Add(1)
		s.down = false
	}
	for i := range recs {
		s.acknowledge(&recs[i])
	}
}

// acknowledge updates r's counter from the state Redis returned for it.
// s.mu must be held.
func (s *Store) acknowledge(r *record) {
	e := s.counters[r.key]
	if e != nil && r.bad != nil {
		// Its hits cannot be written: drop them, and send the Updates
		// that touch it to the exact store, which fails them.
		if e.pending > 0 {
			s.dirty--
		}
		e.pending, e.inflight, e.bad = 0, 0, r.bad
		return
	}
	if e == nil || e.start != r.start || e.inflight != r.hits {
		return // dropped, or counting in a newer window since
	}
	e.inflight = 0
	switch {
	case r.state.Time == r.start:
		// Redis's count holds these hits and everyone's flushed so far;
		// base+hits is a lower bound too, should Redis have lost the key.
		e.base = max(r.state.Count, e.base+r.hits)
	case e.firstHit:
		// Redis holds a window another instance started: adopt it, with
		// the hits admitted here since the flush began.
		e.start, e.base = r.state.Time, r.state.Count
	case r.state.Time > r.start:
		// Redis counts in a newer window (this clock lags): adopt it, as
		// the exact store counts a stale instant in the stored window;
		// the hits admitted here belong to the old one.
		if e.pending > 0 {
			s.dirty--
		}
		e.start, e.base, e.pending = r.state.Time, r.state.Count, 0
	}
}

// write runs the flush script for recs and stores the returned states. It
// returns the first error of a script call, having set the err of every
// record of that call.
func (s *Store) write(ctx context.Context, recs []record) error {
	if !s.sharded {
		return failAll(recs, s.run(ctx, s.client, recs))
	}
	// A script touches one Cluster slot: one call per hash tag, in one
	// pipeline (go-redis sends it to each node at once).
	groups := script.ByHashTag(len(recs), func(i int) string { return recs[i].key })
	if len(groups) == 1 {
		return failAll(recs, s.run(ctx, s.client, recs))
	}
	sub := make([][]record, len(groups))
	for g, idx := range groups {
		sub[g] = make([]record, len(idx))
		for j, i := range idx {
			sub[g][j] = recs[i]
		}
	}
	cmds := make([]*goredis.Cmd, len(sub))
	script.Eval(ctx, s.client, cmds, func(pipe goredis.Pipeliner, i int, sha bool) *goredis.Cmd {
		keys, args := s.scriptArgs(sub[i])
		if sha {
			return flushScript.EvalSha(ctx, pipe, keys, args)
		}
		return flushScript.Eval(ctx, pipe, keys, args)
	})
	var first error
	for g, cmd := range cmds {
		reply, err := cmd.Text()
		if err == nil {
			err = parseReply(reply, sub[g])
		}
		if err != nil && first == nil {
			first = err
		}
		for j, i := range groups[g] {
			recs[i].state, recs[i].bad, recs[i].err = sub[g][j].state, sub[g][j].bad, err
		}
	}
	return first
}

// failAll sets the err of every record of recs to err, and returns it.
func failAll(recs []record, err error) error {
	if err != nil {
		for i := range recs {
			recs[i].err = err
		}
	}
	return err
}

// run runs the flush script for recs in one call.
func (s *Store) run(ctx context.Context, c goredis.Scripter, recs []record) error {
	keys, args := s.scriptArgs(recs)
	reply, err := flushScript.Run(ctx, c, keys, args).Text()
	if err != nil {
		return err
	}
	return parseReply(reply, recs)
}

// scriptArgs returns the script's KEYS and ARGV[1] for recs.
func (s *Store) scriptArgs(recs []record) ([]string, []byte) {
	keys := make([]string, len(recs))
	args := make([]byte, 0, 32*len(recs))
	for i := range recs {
		keys[i] = s.prefix + recs[i].key
		args = script.AppendNum(args, recs[i].start)
		args = script.AppendNum(args, int64(min(recs[i].hits, 1<<52)))
		args = script.AppendNum(args, recs[i].ttlMs)
		args = script.AppendNum(args, recs[i].first)
	}
	return keys, args
}

// parseReply reads one state a line into recs, or for a key that holds
// no counter state ("!", then Redis's error if any) why.
func parseReply(reply string, recs []record) error {
	lines := strings.Split(reply, "\n")
	if len(lines) != len(recs) {
		return fmt.Errorf("flush script returned %d states for %d counters", len(lines), len(recs))
	}
	for i, line := range lines {
		if msg, ok := strings.CutPrefix(line, "!"); ok {
			if msg == "" {
				msg = "does not hold a counter state"
			}
			recs[i].bad = fmt.Errorf("limit/redis/cached: key %q: %s", recs[i].key, msg)
			continue
		}
		st, err := script.ParseState(line)
		if err != nil {
			return fmt.Errorf("key %q: %w", recs[i].key, err)
		}
		recs[i].state = st
	}
	return nil
}

// loop flushes every period, and sooner when BatchSize counters have
// pending hits, until Close.
func (s *Store) loop(period time.Duration) {
	defer close(s.done)
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-s.kick:
		case <-s.stop:
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
		s.Flush(ctx) // a failure marks the store down; the next tick retries
		cancel()
	}
}

// Close stops the flush timer and flushes what is pending, within ctx. It
// returns the last flush's error: the hits it could not write are lost.
// Update returns an error after Close.
func (s *Store) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	select {
	case <-s.done:
	default:
		close(s.stop)
		<-s.done
	}
	return s.Flush(ctx)
}
