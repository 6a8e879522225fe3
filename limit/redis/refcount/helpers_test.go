package refcount

import (
	"context"
	"os"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
)

// quiet drops go-redis's log lines (dials while a test has killed the
// server).
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	goredis.SetLogger(quiet{})
	os.Exit(m.Run())
}

// t0 is 10 s into a minute, an hour and a day.
var t0 = time.Unix(1_800_000_000-1_800_000_000%86400+10, 0)

// newClient starts a redis-server and returns a client on it, with the
// commands it sends recorded.
func newClient(t *testing.T) (goredis.UniversalClient, *recorder) {
	t.Helper()
	c := redistest.Client(t, redistest.Start(t).URL(), redis.NewClient)
	rec := newRecorder()
	c.AddHook(rec)
	return c, rec
}

func newStore(t *testing.T, c goredis.UniversalClient, o Options) *Store {
	t.Helper()
	s, err := New(c, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// recorder is a go-redis hook writing down every command sent, as text
// ("incrby k 1"), and each round trip, leaving out the handshakes of new
// connections (HELLO, CLIENT).
type recorder struct{ redistest.Commands }

func newRecorder() *recorder { return &recorder{redistest.Commands{KeepText: true}} }

// take returns the commands and round trips since the last take.
func (r *recorder) take() ([]string, int) {
	s := r.Take()
	return s.Text, s.RoundTrips
}

func fixed(max uint64, w time.Duration) counter.Policy {
	return counter.Policy{Algorithm: counter.AlgorithmFixedWindow, Max: max, Window: w}
}

// update applies updates at now and returns the decisions.
func update(t *testing.T, s counter.Store, now time.Time, updates ...counter.Update) []counter.Decision {
	t.Helper()
	ds := make([]counter.Decision, len(updates))
	if err := s.Update(context.Background(), now, updates, ds); err != nil {
		t.Fatal(err)
	}
	return ds
}

// get returns a key's value, "" when absent.
func get(t *testing.T, c goredis.UniversalClient, key string) string {
	t.Helper()
	v, err := c.Get(context.Background(), key).Result()
	if err == goredis.Nil {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}
