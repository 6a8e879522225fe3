package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

var t0 = time.Unix(1_699_920_000, 0)

// batchOf returns n updates on distinct keys of one hash tag, cycling
// through the algorithms.
func batchOf(tag string, n int) []counter.Update {
	algs := []counter.Algorithm{counter.AlgorithmFixedWindow, counter.AlgorithmSlidingWindow, counter.AlgorithmTokenBucket, counter.AlgorithmGCRA}
	u := make([]counter.Update, n)
	for i := range u {
		u[i] = counter.Update{
			Key:    fmt.Sprintf("{%s}k%d", tag, i),
			Policy: counter.Policy{Algorithm: algs[i%len(algs)], Max: 1_000_000, Window: time.Minute},
			Cost:   1,
		}
	}
	return u
}

// commandCalls returns the server's call counts per command, from INFO
// commandstats.
func commandCalls(t testing.TB, c goredis.UniversalClient) map[string]int {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	calls := map[string]int{}
	for line := range strings.Lines(info) {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok {
			continue
		}
		n, _, _ := strings.Cut(rest, ",")
		v, err := strconv.Atoi(n)
		if err != nil {
			t.Fatalf("INFO commandstats line %q: %v", line, err)
		}
		calls[strings.TrimPrefix(name, "cmdstat_")] = v
	}
	return calls
}

// delta returns after-before for the script commands.
func delta(before, after map[string]int) map[string]int {
	d := map[string]int{}
	for _, name := range []string{"evalsha", "eval", "get", "mget", "set"} {
		if n := after[name] - before[name]; n != 0 {
			d[name] = n
		}
	}
	return d
}

// TestOneRoundTrip counts the commands an Update sends, on the client (a
// go-redis hook) and on the server (INFO commandstats): one EVALSHA,
// whatever the number of updates.
func TestOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	var hook commandCounter
	c.AddHook(&hook)
	s := newStore(t, c, Options{})
	ctx := context.Background()
	const runs = 10
	for _, n := range []int{1, 5, 20} {
		t.Run(fmt.Sprint(n, " updates"), func(t *testing.T) {
			updates := batchOf(fmt.Sprint("rt", n), n)
			ds := make([]counter.Decision, n)
			if err := s.Update(ctx, t0, updates, ds); err != nil { // may load the script
				t.Fatal(err)
			}
			before := commandCalls(t, c)
			hook.take()
			for i := range runs {
				if err := s.Update(ctx, t0.Add(time.Duration(i)*time.Millisecond), updates, ds); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(map[string]int{"evalsha": runs}, hook.take()); diff != "" {
				t.Errorf("commands sent by %d Updates of %d updates (-want +got):\n%s", runs, n, diff)
			}
			after := commandCalls(t, c)
			// The script's own commands count on the server too: one MGET
			// of the keys, which exist after the first Update, and a SET
			// per key.
			want := map[string]int{"evalsha": runs, "mget": runs, "set": runs * n}
			if diff := cmp.Diff(want, delta(before, after)); diff != "" {
				t.Errorf("server commandstats over %d Updates of %d updates (-want +got):\n%s", runs, n, diff)
			}
		})
	}
}

// TestNoScript flushes the server's script cache: the next Update sends
// EVALSHA, gets NOSCRIPT and sends EVAL; the ones after are single EVALSHAs
// again, and no hit is lost or counted twice.
func TestNoScript(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	var hook commandCounter
	c.AddHook(&hook)
	s := newStore(t, c, Options{})
	ctx := context.Background()
	updates := []counter.Update{{Key: "{ns}k", Policy: counter.Policy{Max: 10, Window: time.Minute}, Cost: 1}}
	ds := make([]counter.Decision, 1)
	if err := c.Ping(ctx).Err(); err != nil { // the connection's set-up commands
		t.Fatal(err)
	}
	hook.take()
	wantUsed := 0.0
	for round, want := range []map[string]int{
		{"evalsha": 1, "eval": 1}, // a fresh server has no script
		{"evalsha": 1},
		{"script": 1}, // SCRIPT FLUSH
		{"evalsha": 1, "eval": 1},
		{"evalsha": 1},
	} {
		if want["script"] == 1 {
			if err := c.ScriptFlush(ctx).Err(); err != nil {
				t.Fatal(err)
			}
		} else {
			if err := s.Update(ctx, t0, updates, ds); err != nil {
				t.Fatalf("round %d: Update: %v", round, err)
			}
			wantUsed++
			if ds[0].Used != wantUsed || !ds[0].Allowed {
				t.Errorf("round %d: Update = %+v, want allowed with Used %v", round, ds[0], wantUsed)
			}
		}
		if diff := cmp.Diff(want, hook.take()); diff != "" {
			t.Errorf("round %d: commands (-want +got):\n%s", round, diff)
		}
	}
}
