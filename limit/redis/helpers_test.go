package redis

import (
	"context"
	"sync"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
)

// newClient returns a client for srv, closed when the test ends.
func newClient(t testing.TB, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	c, err := NewClient(srv.URL())
	if err != nil {
		t.Fatalf("NewClient(%q): %v", srv.URL(), err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// newPatientClient returns a client for srv whose own read and write
// timeouts are an hour, so that only the calls' contexts end them; closed
// when the test ends.
func newPatientClient(t testing.TB, srv *redistest.Server) goredis.UniversalClient {
	t.Helper()
	url := srv.URL() + "?read_timeout=1h&write_timeout=1h"
	c, err := NewClient(url)
	if err != nil {
		t.Fatalf("NewClient(%q): %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
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

// commandCounter is a go-redis hook counting the commands a client sends, by
// name.
type commandCounter struct {
	mu    sync.Mutex
	names map[string]int
}

func (c *commandCounter) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (c *commandCounter) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.mu.Lock()
		if c.names == nil {
			c.names = map[string]int{}
		}
		c.names[cmd.Name()]++
		c.mu.Unlock()
		return next(ctx, cmd)
	}
}

func (c *commandCounter) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.mu.Lock()
		if c.names == nil {
			c.names = map[string]int{}
		}
		c.names["pipeline"]++
		c.mu.Unlock()
		return next(ctx, cmds)
	}
}

// take returns the counts since the last take and resets them.
func (c *commandCounter) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.names
	c.names = nil
	if n == nil {
		n = map[string]int{}
	}
	return n
}

// mustDo runs a command on c and returns its reply.
func mustDo(t testing.TB, c goredis.UniversalClient, args ...any) any {
	t.Helper()
	v, err := c.Do(context.Background(), args...).Result()
	if err != nil && err != goredis.Nil {
		t.Fatalf("%v: %v", args, err)
	}
	return v
}
