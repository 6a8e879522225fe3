package httplimit

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// genericStore hides a MemoryStore behind the Store interface, so the
// limiter takes the path every other store takes, and records the keys.
type genericStore struct {
	mem  *counter.MemoryStore
	mu   sync.Mutex
	keys []string
	err  error
}

func (s *genericStore) Update(ctx context.Context, now time.Time, updates []counter.Update, decisions []counter.Decision) error {
	s.mu.Lock()
	for _, u := range updates {
		s.keys = append(s.keys, strings.Clone(u.Key))
	}
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return err
	}
	return s.mem.Update(ctx, now, updates, decisions)
}

var _ counter.Store = (*genericStore)(nil)

func TestStoreSharedBudget(t *testing.T) {
	// Two instances of one plugin on one store share its budget, as
	// instances on one Redis would.
	clock := newFakeClock()
	store := &genericStore{mem: counter.NewMemoryStore(counter.MemoryOptions{})}
	c := validConfig(func(c *Config) { c.Max, c.Weight = 4, 100 })
	a := front(mustNew(t, "perIP", c, WithStore(store), WithClock(clock.Now)), StepRequest, &upstream{})
	b := front(mustNew(t, "perIP", c, WithStore(store), WithClock(clock.Now)), StepProxyUpstream, &upstream{})
	var got []int
	for i := range 6 {
		h := a
		if i%2 == 1 {
			h = b
		}
		got = append(got, do(h, request()).Status)
	}
	want := []int{200, 200, 200, 200, 429, 429}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses across two instances = %v, want %v", got, want)
		}
	}
	if k := store.keys[0]; k != "httplimit:5:perIP:rate:ip:10000000us:=192.0.2.1" {
		t.Errorf("counter key = %q", k)
	}
}

func TestStoreSeparatesPlugins(t *testing.T) {
	clock := newFakeClock()
	store := counter.NewMemoryStore(counter.MemoryOptions{})
	c := validConfig(func(c *Config) { c.Max, c.Weight = 1, 100 })
	a := front(mustNew(t, "a", c, WithStore(store), WithClock(clock.Now)), StepRequest, &upstream{})
	b := front(mustNew(t, "b", c, WithStore(store), WithClock(clock.Now)), StepRequest, &upstream{})
	for _, h := range []http.Handler{a, b} {
		if got := do(h, request()); got != passed {
			t.Errorf("first request through each plugin = %+v, want %+v", got, passed)
		}
	}
}

func TestStoreErrors(t *testing.T) {
	boom := errors.New("connection refused")
	tests := []struct {
		name    string
		handler func(*http.Request, error) bool
		want    result
	}{
		{name: "default rejects with 503", want: result{Status: 503, Body: "rate limit unavailable"}},
		{name: "handler may let it through", handler: func(*http.Request, error) bool { return true }, want: passed},
		{name: "handler may reject", handler: func(*http.Request, error) bool { return false }, want: result{Status: 503, Body: "rate limit unavailable"}},
	}
	for _, step := range steps {
		for _, tc := range tests {
			t.Run(string(step)+"/"+tc.name, func(t *testing.T) {
				store := &genericStore{mem: counter.NewMemoryStore(counter.MemoryOptions{}), err: boom}
				var seen []error
				opts := []Option{WithStore(store)}
				if tc.handler != nil {
					opts = append(opts, WithStoreErrorHandler(func(r *http.Request, err error) bool {
						seen = append(seen, err)
						return tc.handler(r, err)
					}))
				}
				u := &upstream{}
				h := front(mustNew(t, "perIP", validConfig(nil), opts...), step, u)
				if got := do(h, request()); got != tc.want {
					t.Errorf("request = %+v, want %+v", got, tc.want)
				}
				if wantCalls := int64(0); tc.want == passed {
					wantCalls = 1
					if u.calls.Load() != wantCalls {
						t.Errorf("upstream calls = %d, want %d", u.calls.Load(), wantCalls)
					}
				} else if u.calls.Load() != 0 {
					t.Errorf("upstream calls = %d, want 0", u.calls.Load())
				}
				if tc.handler != nil {
					if len(seen) != 1 || !errors.Is(seen[0], boom) || !strings.Contains(seen[0].Error(), "httplimit: plugin perIP: ") {
						t.Errorf("handler saw %v, want one error wrapping %v and naming the plugin", seen, boom)
					}
				}
			})
		}
	}
}

// TestStorePathsAgree runs one sequence through the memory store's fast
// path and through the Store interface: same answers.
func TestStorePathsAgree(t *testing.T) {
	c := validConfig(func(c *Config) { c.Max, c.Interval = 5, 2*time.Second })
	run := func(opts ...Option) []result {
		clock := newFakeClock()
		h := front(mustNew(t, "p", c, append(opts, WithClock(clock.Now))...), StepRequest, &upstream{})
		var out []result
		for i := range 40 {
			clock.Set(t0.Add(time.Duration(i) * 150 * time.Millisecond))
			out = append(out, do(h, request()))
		}
		return out
	}
	fast := run()
	generic := run(WithStore(&genericStore{mem: counter.NewMemoryStore(counter.MemoryOptions{})}))
	for i := range fast {
		if fast[i] != generic[i] {
			t.Errorf("request %d: memory store %+v, Store interface %+v", i, fast[i], generic[i])
		}
	}
}
