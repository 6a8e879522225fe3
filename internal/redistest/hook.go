package redistest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	goredis "github.com/redis/go-redis/v9"
)

// Client returns a client made by open (such as limit/redis.NewClient) for url, closed when
// the test ends; an error from open fails t.
func Client(t testing.TB, url string, open func(string) (goredis.UniversalClient, error)) goredis.UniversalClient {
	t.Helper()
	c, err := open(url)
	if err != nil {
		t.Fatalf("NewClient(%q): %v", url, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Commands is a go-redis hook (add it with AddHook) writing down what a client sends, round
// trip by round trip: a command alone, or a pipeline. The handshake of a new connection
// (HELLO, CLIENT) is left out, so that what a test counts does not depend on when the pool
// dials. It is safe for concurrent use.
type Commands struct {
	// KeepText makes the hook keep every command's text (Sent.Text), which costs
	// allocations in the client's path: leave it off in benchmarks.
	KeepText bool

	mu      sync.Mutex
	sent    Sent
	scripts atomic.Int64
}

// Sent is what a client sent between two calls of Commands.Take.
type Sent struct {
	// Names counts the commands by name ("evalsha"), each command of a pipeline included.
	Names map[string]int
	// Calls counts the round trips: a command alone by its name, a pipeline as "pipeline".
	Calls map[string]int
	// Text is every command as text ("incrby k 1"), in the order sent, with KeepText.
	Text []string
	// RoundTrips is the number of round trips.
	RoundTrips int
}

// DialHook leaves dialling alone.
func (c *Commands) DialHook(next goredis.DialHook) goredis.DialHook { return next }

// ProcessHook writes down a command sent alone.
func (c *Commands) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		c.add(false, cmd)
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook writes down a pipeline.
func (c *Commands) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		c.add(true, cmds...)
		return next(ctx, cmds)
	}
}

func (c *Commands) add(pipeline bool, cmds ...goredis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.sent
	if s.Names == nil {
		s.Names, s.Calls = map[string]int{}, map[string]int{}
	}
	trip := false
	for _, cmd := range cmds {
		name := cmd.Name()
		if name == "hello" || name == "client" {
			continue
		}
		if !trip {
			trip = true
			s.RoundTrips++
			if pipeline {
				s.Calls["pipeline"]++
			} else {
				s.Calls[name]++
			}
		}
		if name == "evalsha" || name == "eval" {
			c.scripts.Add(1)
		}
		s.Names[name]++
		if !c.KeepText {
			continue
		}
		args := make([]string, len(cmd.Args()))
		for i, a := range cmd.Args() {
			args[i] = fmt.Sprint(a)
		}
		s.Text = append(s.Text, strings.Join(args, " "))
	}
}

// Take returns what was sent since the last Take (or since the hook was added) and starts
// afresh. Its maps are never nil.
func (c *Commands) Take() Sent {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sent
	c.sent = Sent{}
	if s.Names == nil {
		s.Names, s.Calls = map[string]int{}, map[string]int{}
	}
	return s
}

// Scripts returns the scripts (EVALSHA and EVAL, alone or in pipelines) sent since the hook
// was added, whatever became of them; Take does not reset it.
func (c *Commands) Scripts() int64 { return c.scripts.Load() }
