package cached

import (
	"context"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/limit/redis/internal/script"
)

// quiet drops go-redis's log lines (dial failures while a test has killed
// the server); the errors that matter reach the tests through Flush.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func init() { goredis.SetLogger(quiet{}) }

// t0 is a whole hour (UTC): windows of a minute or an hour start at it.
var t0 = time.Unix(1_800_000_000, 0)

// newClient returns a client for srv, closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	return redistest.Client(t, srv.URL()+"?max_retries=-1&dial_timeout=200ms", redis.NewClient)
}

// newStore returns a Store on c with options o (no flush timer unless o
// sets a period), closed when the test ends.
func newStore(t testing.TB, c goredis.UniversalClient, o Options) *Store {
	t.Helper()
	if o.FlushPeriod == 0 {
		o.FlushPeriod = -1
	}
	s, err := New(c, o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}

// hit sends one update of cost to s and reports whether it was admitted.
func hit(t testing.TB, s *Store, at time.Time, key string, p counter.Policy, cost uint64) bool {
	t.Helper()
	ds := make([]counter.Decision, 1)
	if err := s.Update(context.Background(), at, []counter.Update{{Key: key, Policy: p, Cost: cost}}, ds); err != nil {
		t.Fatalf("Update(%s, cost %d): %v", key, cost, err)
	}
	return ds[0].Allowed
}

// mustFlush flushes s.
func mustFlush(t testing.TB, s *Store) {
	t.Helper()
	if err := s.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

// stored returns the state limit/redis's format holds for key, or the zero
// state.
func stored(t testing.TB, c goredis.UniversalClient, key string) counter.State {
	t.Helper()
	v, err := c.Get(context.Background(), key).Result()
	if err == goredis.Nil {
		return counter.State{}
	}
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	st, err := script.ParseState(v)
	if err != nil {
		t.Fatalf("GET %s: %v", key, err)
	}
	return st
}

// commands is a go-redis hook counting the commands a client sends (each
// command of a pipeline) and the round trips (a command or a pipeline).
type commands struct{ redistest.Commands }

// take returns the command counts and round trips since the last take.
func (c *commands) take() (map[string]int, int) {
	s := c.Take()
	return s.Names, s.RoundTrips
}

// checkInvariants fails the test unless s's bookkeeping holds: dirty counts
// the counters with pending hits, and, while s is up, no counter holds more
// unacknowledged hits than limit.
func checkInvariants(t testing.TB, s *Store, limit uint64) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	dirty := 0
	for k, e := range s.counters {
		if e.pending > 0 {
			dirty++
		}
		if !s.down && e.pending+e.inflight > limit {
			t.Errorf("counter %q holds %d unacknowledged hits, want at most %d", k, e.pending+e.inflight, limit)
		}
	}
	if dirty != s.dirty {
		t.Errorf("dirty = %d, want %d (the counters with pending hits)", s.dirty, dirty)
	}
}
