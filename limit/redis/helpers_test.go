package redis

import (
	"context"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// newClient returns a client for srv, closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	return redistest.Client(t, srv.URL(), NewClient)
}

// newPatientClient returns a client for srv whose own read and write
// timeouts are an hour, so that only the calls' contexts end them; closed
// when the test ends.
func newPatientClient(t testing.TB, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	return redistest.Client(t, srv.URL()+"?read_timeout=1h&write_timeout=1h", NewClient)
}

// newStore returns a Store on c with options o.
func newStore(t testing.TB, c goredis.UniversalClient, o Options) *Store {
	t.Helper()
	s, err := New(c, o)
	if err != nil {
		t.Fatalf("New(%+v): %v", o, err)
	}
	return s
}

// commandCounter is a go-redis hook counting the round trips a client sends:
// a command alone by its name, a pipeline as "pipeline".
type commandCounter struct{ redistest.Commands }

// take returns the counts since the last take and resets them.
func (c *commandCounter) take() map[string]int { return c.Take().Calls }

// mustDo runs a command on c and returns its reply.
func mustDo(t testing.TB, c goredis.UniversalClient, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil && err != goredis.Nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}
