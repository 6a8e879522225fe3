package redis

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

func TestNewErrors(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	tests := []struct {
		name    string
		nilC    bool
		o       Options
		wantErr string // "" for none
	}{
		{name: "defaults", o: Options{}},
		{name: "all options", o: Options{KeyPrefix: "rl:", ServerTime: true, TTLMargin: time.Minute}},
		{name: "nil client", nilC: true, wantErr: "nil client"},
		{name: "brace in prefix", o: Options{KeyPrefix: "rl{x}:"}, wantErr: `key prefix "rl{x}:"`},
		{name: "closing brace in prefix", o: Options{KeyPrefix: "}"}, wantErr: "brace"},
		{name: "negative margin", o: Options{TTLMargin: -time.Second}, wantErr: "negative TTL margin -1s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cl := c
			if tc.nilC {
				cl = nil
			}
			_, err := New(cl, tc.o)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("New(%+v) = %v, want no error", tc.o, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "limit/redis: ") {
				t.Fatalf("New(%+v) = %v, want an error containing %q", tc.o, err, tc.wantErr)
			}
		})
	}
}

// TestUpdateErrors covers the failures storetest does not: instants the
// script cannot compute exactly, and keys that hold something else.
func TestUpdateErrors(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	ctx := context.Background()
	s := newStore(t, c, Options{})
	p := counter.Policy{Max: 5, Window: time.Minute}
	if err := c.LPush(ctx, "{err}list", "x").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "{err}junk", "not a state", 0).Err(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		now     time.Time
		key     string
		wantErr string
	}{
		{"before 1970", time.Unix(-1, 0), "{err}k", "outside the range"},
		{"zero time", time.Time{}, "{err}k", "outside the range"},
		{"after 2112", time.UnixMicro(1 << 52), "{err}k", "outside the range"},
		{"key of another type", t0, "{err}list", "WRONGTYPE"},
		{"key holding another string", t0, "{err}junk", "does not hold a counter state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			batch := []counter.Update{{Key: "{err}fine", Policy: p, Cost: 1}, {Key: tc.key, Policy: p, Cost: 1}}
			err := s.Update(ctx, tc.now, batch, make([]counter.Decision, 2))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "limit/redis: ") {
				t.Fatalf("Update(%v, %q) = %v, want an error containing %q", tc.now, tc.key, err, tc.wantErr)
			}
			if n := c.Exists(ctx, "{err}fine").Val(); n != 0 {
				t.Errorf("a failed Update wrote {err}fine")
			}
		})
	}
	// The last instant accepted.
	if err := s.Update(ctx, time.UnixMicro(1<<52-1), []counter.Update{{Key: "{err}late", Policy: p, Cost: 1}}, make([]counter.Decision, 1)); err != nil {
		t.Errorf("Update at 2^52-1 µs: %v", err)
	}
}

// TestSplitReply reads replies to script calls of one or several
// requests into each request's result, and refuses malformed ones.
func TestSplitReply(t *testing.T) {
	tests := []struct {
		name    string
		keys    []int // per request
		reply   string
		want    []result
		wantErr bool
	}{
		{name: "one key, none stored", keys: []int{1}, reply: "17 1\n", want: []result{{17, '1', ""}}},
		{name: "two keys", keys: []int{2}, reply: "17 0\n1 2 3\n", want: []result{{17, '0', "1 2 3\n"}}},
		{name: "key holding something else", keys: []int{1}, reply: "17 e\n!", want: []result{{17, 'e', "!"}}},
		{name: "unknown algorithm beside an admitted request", keys: []int{1, 1}, reply: "17 a1\n\n", want: []result{{17, 'a', ""}, {17, '1', ""}}},
		{name: "three requests", keys: []int{1, 2, 1}, reply: "0 101\n1 2 3\n\n4 5 6\n", want: []result{{0, '1', "1 2 3"}, {0, '0', "\n4 5 6"}, {0, '1', ""}}},
		{name: "too few states", keys: []int{3}, reply: "17 0\n\n", wantErr: true},
		{name: "too many states", keys: []int{1, 1}, reply: "17 00\n\n\n", wantErr: true},
		{name: "too few flags", keys: []int{1, 1}, reply: "17 0\n\n", wantErr: true},
		{name: "bad flag", keys: []int{1}, reply: "17 2\n", wantErr: true},
		{name: "bad instant", keys: []int{1}, reply: "x 1\n", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			calls := make([]*call, len(tc.keys))
			for r, n := range tc.keys {
				calls[r] = &call{keys: make([]string, n)}
			}
			err := splitReply(tc.reply, calls)
			if (err != nil) != tc.wantErr {
				t.Fatalf("splitReply(%q) error = %v, want error %v", tc.reply, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			for r, c := range calls {
				if c.result != tc.want[r] {
					t.Errorf("splitReply(%q) request %d: %+v, want %+v", tc.reply, r, c.result, tc.want[r])
				}
			}
		})
	}
}

// TestParseStates reads a request's lines into the states it read.
func TestParseStates(t *testing.T) {
	tests := []struct {
		name      string
		keys      int
		states    string
		wantState []counter.State
		wantErr   string
	}{
		{name: "one key, none stored", keys: 1, states: "", wantState: []counter.State{{}}},
		{name: "two keys", keys: 2, states: "1 2 3\n", wantState: []counter.State{{Time: 1, Count: 2, Prev: 3}, {}}},
		{name: "too few states", keys: 3, states: "\n", wantErr: "2 states for 3 keys"},
		{name: "bad state", keys: 1, states: "foo", wantErr: "malformed counter state"},
		{name: "another value", keys: 1, states: "!", wantErr: "does not hold a counter state"},
		{name: "another type", keys: 2, states: "\n!WRONGTYPE Operation against a key holding the wrong kind of value", wantErr: "WRONGTYPE Operation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &batch{keys: make([]string, tc.keys)}
			err := b.parseStates(tc.states)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("parseStates(%q) = %v, want an error containing %q", tc.states, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseStates(%q): %v", tc.states, err)
			}
			if diff := cmp.Diff(tc.wantState, b.stored); diff != "" {
				t.Errorf("parseStates(%q) states (-want +got):\n%s", tc.states, diff)
			}
		})
	}
}

// TestFinishDisagreement feeds finish a reply whose admission flag
// contradicts the states it carries: Update must fail rather than pick one.
func TestFinishDisagreement(t *testing.T) {
	p := counter.Policy{Max: 2, Window: time.Minute}
	updates := []counter.Update{{Key: "{f}k", Policy: p, Cost: 1}}
	start := t0.Truncate(time.Minute).UnixMicro()
	tests := []struct {
		name    string
		reply   result
		wantErr bool
	}{
		{"agree, admitted", result{0, '1', fmt.Sprintf("%d 1 0", start)}, false},
		{"agree, rejected", result{0, '0', fmt.Sprintf("%d 2 0", start)}, false},
		{"script admitted a full counter", result{0, '1', fmt.Sprintf("%d 2 0", start)}, true},
		{"script rejected an empty counter", result{0, '0', ""}, true},
		{"script found no counter state", result{0, 'e', ""}, true},
		{"script does not know the algorithm", result{0, 'a', ""}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &batch{keys: []string{"{f}k"}, keyOf: []int{0}}
			err := b.finish(false, t0, tc.reply, updates, make([]counter.Decision, 1))
			if (err != nil) != tc.wantErr {
				t.Fatalf("finish(%+v) = %v, want error %v", tc.reply, err, tc.wantErr)
			}
		})
	}
}
