package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// fakeTimers replaces a Breaker's timers: each wait the loop asks for is
// queued, and fires when the test says so.
type fakeTimers struct{ waits chan fakeTimer }

type fakeTimer struct {
	d    time.Duration
	fire chan time.Time
}

func newFakeTimers() *fakeTimers { return &fakeTimers{waits: make(chan fakeTimer, 100)} }

func (f *fakeTimers) after(d time.Duration) <-chan time.Time {
	c := make(chan time.Time, 1)
	f.waits <- fakeTimer{d: d, fire: c}
	return c
}

// next returns the loop's next wait.
func (f *fakeTimers) next(t *testing.T) fakeTimer {
	t.Helper()
	select {
	case w := <-f.waits:
		return w
	case <-time.After(10 * time.Second):
		t.Fatal("the breaker's loop asked for no wait within 10s")
		return fakeTimer{}
	}
}

// changes records a Breaker's OnChange calls.
type changes struct {
	mu  sync.Mutex
	got []string
	c   chan struct{} // one token a call
}

func newChanges() *changes { return &changes{c: make(chan struct{}, 100)} }

func (c *changes) onChange(up bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if up {
		c.got = append(c.got, "up")
	} else {
		c.got = append(c.got, "down")
	}
	c.c <- struct{}{}
}

// wait waits for one more call.
func (c *changes) wait(t *testing.T, what string) {
	t.Helper()
	select {
	case <-c.c:
	case <-time.After(10 * time.Second):
		t.Fatalf("no OnChange call for %s within 10s", what)
	}
}

func (c *changes) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

// dials is a go-redis hook counting dials, with commandCounter counting
// commands.
type dials struct {
	commandCounter
	n atomic.Int64
}

func (d *dials) DialHook(next goredis.DialHook) goredis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d.n.Add(1)
		return next(ctx, network, addr)
	}
}

// startBreaker returns a Breaker on c with fake timers, its loop running
// until the test ends.
func startBreaker(t *testing.T, c goredis.UniversalClient, o BreakerOptions) (*Breaker, *fakeTimers, *changes) {
	t.Helper()
	ft, ch := newFakeTimers(), newChanges()
	o.OnChange = ch.onChange
	b, err := newBreaker(c, o, ft.after)
	if err != nil {
		t.Fatal(err)
	}
	go b.loop()
	t.Cleanup(b.Close)
	return b, ft, ch
}

func updateOne(s *Store, ctx context.Context, key string) error {
	ds := make([]counter.Decision, 1)
	return s.Update(ctx, t0, []counter.Update{{Key: key, Policy: counter.Policy{Max: 100, Window: time.Hour}, Cost: 1}}, ds)
}

// TestBreakerFailsFastWhileDown kills Redis: the first Update fails on the
// network and makes the breaker down; the next ones fail at once with
// counter.ErrStoreDown, sending no command and dialing nothing; a probe
// after the restart ends the outage and updates succeed. OnChange is called
// once for each change.
func TestBreakerFailsFastWhileDown(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	hook := &dials{}
	c.AddHook(hook)
	b, ft, ch := startBreaker(t, c, BreakerOptions{CheckInterval: -1})
	s := newStore(t, c, Options{Breaker: b})
	ctx := context.Background()
	if err := updateOne(s, ctx, "{b}k"); err != nil {
		t.Fatal(err)
	}

	srv.Kill()
	err := updateOne(s, ctx, "{b}k")
	if err == nil || errors.Is(err, counter.ErrStoreDown) {
		t.Fatalf("first Update with Redis killed = %v, want the network's error", err)
	}
	ch.wait(t, "the outage")
	if w := ft.next(t); w.d != DefaultProbeInterval {
		t.Errorf("first probe after %v, want %v", w.d, DefaultProbeInterval)
	} else {
		defer func() { w.fire <- time.Now() }() // if the test fails before firing it
		hook.take()
		hook.n.Store(0)
		const n = 50
		for i := range n {
			if err := updateOne(s, ctx, fmt.Sprintf("{b}k%d", i)); !errors.Is(err, counter.ErrStoreDown) {
				t.Fatalf("Update %d while down = %v, want counter.ErrStoreDown", i, err)
			}
		}
		if got := hook.take(); len(got) != 0 || hook.n.Load() != 0 {
			t.Errorf("%d Updates while down sent %v and dialed %d times, want nothing", n, got, hook.n.Load())
		}

		srv.Restart(t)
		w.fire <- time.Now()
		ch.wait(t, "the recovery")
	}
	if err := updateOne(s, ctx, "{b}k"); err != nil {
		t.Errorf("Update after the recovery = %v", err)
	}
	if diff := cmp.Diff([]string{"down", "up"}, ch.list()); diff != "" {
		t.Errorf("OnChange calls (-want +got):\n%s", diff)
	}
}

// TestBreakerSlowIsNotDown: a call past its deadline makes the breaker
// probe at once (at most one a ProbeInterval); with Redis answering the PING it stays up, with Redis
// frozen the PING times out and it is down until a probe answers.
func TestBreakerSlowIsNotDown(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	hook := &commandCounter{}
	c.AddHook(hook)
	b, ft, ch := startBreaker(t, c, BreakerOptions{CheckInterval: time.Hour, ProbeTimeout: 100 * time.Millisecond})
	s := newStore(t, c, Options{Breaker: b})
	if w := ft.next(t); w.d != time.Hour {
		t.Fatalf("first wait %v, want the check interval", w.d)
	}
	if err := updateOne(s, context.Background(), "{b}k"); err != nil {
		t.Fatal(err)
	}

	// A timeout with Redis up: one PING, still up.
	hook.take()
	b.Report(fmt.Errorf("wrapped: %w", context.DeadlineExceeded))
	ft.next(t).fire <- time.Now() // the probe, at once
	if w := ft.next(t); w.d != time.Hour {
		t.Fatalf("wait after a probe that answered: %v, want the check interval", w.d)
	}
	if got := hook.take(); got["ping"] != 1 || b.Err() != nil {
		t.Errorf("after a timeout with Redis up: sent %v, Err %v; want one ping and up", got, b.Err())
	}

	// Redis frozen: the call times out, the probe too: down.
	srv.Pause(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	err := updateOne(s, ctx, "{b}k")
	cancel()
	if err == nil || errors.Is(err, counter.ErrStoreDown) {
		t.Fatalf("Update with Redis frozen = %v, want a timeout", err)
	}
	w := ft.next(t)
	if w.d > DefaultProbeInterval {
		t.Fatalf("wait after a timeout: %v, want a probe at once (at most one a probe interval)", w.d)
	}
	w.fire <- time.Now()
	ch.wait(t, "the outage")
	if err := updateOne(s, context.Background(), "{b}k"); !errors.Is(err, counter.ErrStoreDown) {
		t.Errorf("Update once the probe timed out = %v, want counter.ErrStoreDown", err)
	}
	srv.Resume(t)
	ft.next(t).fire <- time.Now()
	ch.wait(t, "the recovery")
	if err := updateOne(s, context.Background(), "{b}k"); err != nil {
		t.Errorf("Update after the recovery = %v", err)
	}
	if diff := cmp.Diff([]string{"down", "up"}, ch.list()); diff != "" {
		t.Errorf("OnChange calls (-want +got):\n%s", diff)
	}
}

// TestBreakerBrokenConnectionIsNotDown: a connection reset under a call,
// as a stale connection of the pool after a restart of Redis is, makes the
// breaker probe at once; with Redis answering the PING it stays up (no
// OnChange call), with Redis gone the probe's dial is refused and it is
// down.
func TestBreakerBrokenConnectionIsNotDown(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	hook := &commandCounter{}
	c.AddHook(hook)
	b, ft, ch := startBreaker(t, c, BreakerOptions{CheckInterval: time.Hour})
	b.watchDials()
	if w := ft.next(t); w.d != time.Hour {
		t.Fatalf("first wait %v, want the check interval", w.d)
	}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}

	hook.take()
	b.Report(reset)
	if err := b.Err(); err != nil {
		t.Fatalf("Err right after a reset connection = %v, want nil until a probe fails", err)
	}
	w := ft.next(t)
	if w.d > DefaultProbeInterval {
		t.Fatalf("wait after a reset connection: %v, want a probe at once (at most one a probe interval)", w.d)
	}
	w.fire <- time.Now()
	if w := ft.next(t); w.d != time.Hour {
		t.Fatalf("wait after a probe that answered: %v, want the check interval", w.d)
	}
	if got := hook.take(); got["ping"] != 1 || b.Err() != nil {
		t.Errorf("after a reset connection with Redis up: sent %v, Err %v; want one ping and up", got, b.Err())
	}

	srv.Kill()
	b.Report(&net.OpError{Op: "read", Net: "tcp", Err: io.EOF})
	ft.next(t).fire <- time.Now()
	ch.wait(t, "the outage")
	if err := b.Err(); !errors.Is(err, counter.ErrStoreDown) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Err after the probe's refused dial = %v, want counter.ErrStoreDown naming the refused connection", err)
	}
	if diff := cmp.Diff([]string{"down"}, ch.list()); diff != "" {
		t.Errorf("OnChange calls (-want +got):\n%s", diff)
	}
}

// TestBreakerWatchesDials: a refused dial makes the breaker down at once,
// and the call in flight that met it ends then, with the breaker's error
// naming the refused connection, rather than after go-redis's dial retries
// and their backoff (1 to 1.7 s) or its own deadline.
func TestBreakerWatchesDials(t *testing.T) {
	srv := redistest.Start(t)
	c := newClient(t, srv)
	b, ft, ch := startBreaker(t, c, BreakerOptions{CheckInterval: -1})
	b.watchDials()
	s := newStore(t, c, Options{Breaker: b})
	if err := updateOne(s, context.Background(), "{b}k"); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	err := updateOne(s, ctx, "{b}k")
	ended := ctx.Err()
	cancel()
	if !errors.Is(err, counter.ErrStoreDown) || !strings.Contains(err.Error(), "connection refused") || ended != nil {
		t.Fatalf("Update with Redis killed = %v (its deadline: %v), want counter.ErrStoreDown naming the refused connection, before its deadline", err, ended)
	}
	ch.wait(t, "the outage")
	if err := b.Err(); !errors.Is(err, counter.ErrStoreDown) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Err after a refused dial = %v, want counter.ErrStoreDown naming the refused connection", err)
	}
	ft.next(t) // the first probe's wait, never fired
}

// TestBreakerBackoff: the waits between probes double from ProbeInterval
// up to MaxProbeInterval while probes fail, and start again from
// ProbeInterval after an outage ends.
func TestBreakerBackoff(t *testing.T) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	ft, ch := newFakeTimers(), newChanges()
	b, err := newBreaker(c, BreakerOptions{CheckInterval: -1, ProbeInterval: 100 * time.Millisecond, MaxProbeInterval: time.Second, OnChange: ch.onChange}, ft.after)
	if err != nil {
		t.Fatal(err)
	}
	var answers atomic.Int64 // probes left failing
	b.ping = func(context.Context) error {
		if answers.Add(-1) >= 0 {
			return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
		}
		return nil
	}
	go b.loop()
	t.Cleanup(b.Close)

	ms := time.Millisecond
	for round, want := range [][]time.Duration{
		{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second},
		{100 * ms, 200 * ms},
	} {
		answers.Store(int64(len(want) - 1))
		b.Report(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)})
		ch.wait(t, "the outage")
		var got []time.Duration
		for range want {
			w := ft.next(t)
			got = append(got, w.d)
			w.fire <- time.Now()
		}
		ch.wait(t, "the recovery")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("round %d: waits between probes (-want +got):\n%s", round, diff)
		}
	}
}

// TestBreakerClose: Close ends the loop (also while it waits to probe) and
// is idempotent; reports after it change nothing.
func TestBreakerClose(t *testing.T) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	b, err := NewBreaker(c, BreakerOptions{ProbeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	b.Report(refused)
	if !errors.Is(b.Err(), counter.ErrStoreDown) {
		t.Fatalf("Err after a refused dial = %v, want counter.ErrStoreDown", b.Err())
	}
	b.Close()
	b.Close()
	select {
	case <-b.done:
	default:
		t.Fatal("the loop still runs after Close")
	}

	b2, err := NewBreaker(c, BreakerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b2.Close()
	b2.Report(refused)
	if err := b2.Err(); err != nil {
		t.Errorf("Err after Close and a report = %v, want nil", err)
	}
	var nilBreaker *Breaker
	nilBreaker.Report(refused)
	if err := nilBreaker.Err(); err != nil {
		t.Errorf("nil Breaker's Err = %v, want nil", err)
	}
}

func TestClassify(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	pipe := &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}
	unreachable := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	for _, tc := range []struct {
		name string
		err  error
		want verdict
	}{
		{"nil", nil, verdictNone},
		{"refused", refused, verdictDown},
		{"refused, wrapped", fmt.Errorf("dial: %w", refused), verdictDown},
		{"unreachable", unreachable, verdictDown},
		{"name lookup", &net.DNSError{Err: "no such host", Name: "redis"}, verdictDown},
		{"name lookup of a dial", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "redis"}}, verdictDown},
		{"reset", reset, verdictSuspect},
		{"broken pipe", pipe, verdictSuspect},
		{"EOF", io.EOF, verdictSuspect},
		{"EOF of a read", &net.OpError{Op: "read", Net: "tcp", Err: io.EOF}, verdictSuspect},
		{"unexpected EOF", io.ErrUnexpectedEOF, verdictSuspect},
		{"read timeout", timeout, verdictSuspect},
		{"deadline", context.DeadlineExceeded, verdictSuspect},
		{"pool timeout", goredis.ErrPoolTimeout, verdictSuspect},
		{"canceled", context.Canceled, verdictNone},
		{"dial canceled", &net.OpError{Op: "dial", Net: "tcp", Err: context.Canceled}, verdictNone},
		{"client closed", goredis.ErrClosed, verdictNone},
		{"already down", downError(refused), verdictNone},
		{"Redis error reply", goredis.ErrNoScript, verdictNone},
		{"other", errors.New("limit/redis: bad reply"), verdictNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want {
				t.Errorf("classify(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestNewBreakerErrors(t *testing.T) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	if _, err := NewBreaker(nil, BreakerOptions{ProbeTimeout: -1}); err == nil {
		t.Error("NewBreaker(nil, negative timeout) succeeded")
	}
	other := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { other.Close() })
	b, err := NewBreaker(other, BreakerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	if _, err := New(c, Options{Breaker: b}); err == nil {
		t.Error("New with a breaker of another client succeeded")
	}
}

// TestBreakerProbeSuccessEndsOutageRenamedMeanwhile: two probes start
// during one outage; the one failing first gives the outage its error, and
// the one answering afterwards still ends it (it had ended only an outage
// whose error no probe had changed).
func TestBreakerProbeSuccessEndsOutageRenamedMeanwhile(t *testing.T) {
	c := goredis.NewClient(&goredis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	ch := newChanges()
	b, err := newBreaker(c, BreakerOptions{OnChange: ch.onChange}, newFakeTimers().after)
	if err != nil {
		t.Fatal(err)
	}
	b.trip(syscall.ECONNREFUSED)
	entered := make(chan struct{}, 2)
	replies := make(chan error)
	b.ping = func(context.Context) error { entered <- struct{}{}; return <-replies }
	done := make(chan error, 2)
	for range 2 {
		go func() { done <- b.Probe(context.Background()) }()
		<-entered
	}
	replies <- errors.New("i/o timeout")
	if err := <-done; err == nil {
		t.Fatal("the first probe to return succeeded, want its error")
	}
	replies <- nil
	if err := <-done; err != nil {
		t.Fatalf("the second probe: %v", err)
	}
	if err := b.Err(); err != nil {
		t.Errorf("after a probe answered: Err = %v, want nil", err)
	}
	if diff := cmp.Diff([]string{"down", "up"}, ch.list()); diff != "" {
		t.Errorf("OnChange calls (-want +got):\n%s", diff)
	}
}
