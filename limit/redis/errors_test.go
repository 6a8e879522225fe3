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

func TestParseReply(t *testing.T) {
	tests := []struct {
		name      string
		keys      int
		reply     string
		wantNow   int64
		wantOK    bool
		wantState []counter.State
		wantErr   bool
	}{
		{name: "one key, none stored", keys: 1, reply: "17 1\n", wantNow: 17, wantOK: true, wantState: []counter.State{{}}},
		{name: "two keys", keys: 2, reply: "17 0\n1 2 3\n", wantNow: 17, wantState: []counter.State{{Time: 1, Count: 2, Prev: 3}, {}}},
		{name: "too few states", keys: 3, reply: "17 0\n\n", wantErr: true},
		{name: "bad flag", keys: 1, reply: "17 2\n", wantErr: true},
		{name: "bad instant", keys: 1, reply: "x 1\n", wantErr: true},
		{name: "bad state", keys: 1, reply: "17 1\nfoo", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &batch{keys: make([]string, tc.keys)}
			now, ok, err := b.parse(tc.reply)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parse(%q) error = %v, want error %v", tc.reply, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if now != tc.wantNow || ok != tc.wantOK {
				t.Errorf("parse(%q) = %d, %v, want %d, %v", tc.reply, now, ok, tc.wantNow, tc.wantOK)
			}
			if diff := cmp.Diff(tc.wantState, b.stored); diff != "" {
				t.Errorf("parse(%q) states (-want +got):\n%s", tc.reply, diff)
			}
		})
	}
}

func TestTTLMillis(t *testing.T) {
	tests := []struct {
		name string
		p    counter.Policy
		want int64
	}{
		{"fixed window", counter.Policy{Max: 3, Window: time.Minute}, 60_000},
		{"fixed window under 1ms", counter.Policy{Max: 3, Window: 1500 * time.Microsecond}, 2},
		{"sliding window", counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 3, Window: time.Minute}, 120_000},
		{"token bucket", counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 7, Window: time.Second}, 1001}, // 142,858µs x 7
		{"token bucket max 0", counter.Policy{Algorithm: counter.AlgorithmTokenBucket, Max: 0, Window: time.Second}, 1000},
		{"gcra", counter.Policy{Algorithm: counter.AlgorithmGCRA, Max: 3, Window: time.Second}, 1001}, // 333,334µs x 3
		{"largest", counter.Policy{Algorithm: counter.AlgorithmSlidingWindow, Max: 1, Window: counter.MaxWindow}, 2 * counter.MaxWindow.Milliseconds()},
	}
	for _, tc := range tests {
		if got := ttlMillis(tc.p); got != tc.want {
			t.Errorf("ttlMillis(%s %+v) = %d, want %d", tc.name, tc.p, got, tc.want)
		}
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
		reply   string
		wantErr bool
	}{
		{"agree, admitted", fmt.Sprintf("%d 1\n%d 1 0", t0.UnixMicro(), start), false},
		{"agree, rejected", fmt.Sprintf("%d 0\n%d 2 0", t0.UnixMicro(), start), false},
		{"script admitted a full counter", fmt.Sprintf("%d 1\n%d 2 0", t0.UnixMicro(), start), true},
		{"script rejected an empty counter", fmt.Sprintf("%d 0\n", t0.UnixMicro()), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := &batch{keys: []string{"{f}k"}, keyOf: []int{0}}
			err := b.finish(false, t0, tc.reply, updates, make([]counter.Decision, 1))
			if (err != nil) != tc.wantErr {
				t.Fatalf("finish(%q) = %v, want error %v", tc.reply, err, tc.wantErr)
			}
		})
	}
}
