package serving

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// wait is how long a test waits for the Watcher before failing: generous,
// since only the order and number of events are checked, never their time.
const wait = 10 * time.Second

// script is a Look that returns, one poll at a time, the fingerprints a
// test feeds it, and a Changed that records the fingerprint each change was
// reported at.
type script struct {
	t       *testing.T
	ctx     context.Context
	polling chan struct{} // a poll has begun: Look waits for its fingerprint
	feed    chan string
	cur     string // the fingerprint Look last returned; Run's goroutine only
	waiting bool   // a poll has begun and waits for its fingerprint; the test's goroutine only

	mu      sync.Mutex
	looks   int
	changes []string
}

func newScript(t *testing.T, ctx context.Context, last string) *script {
	return &script{t: t, ctx: ctx, polling: make(chan struct{}), feed: make(chan string), cur: last}
}

func (s *script) look() string {
	select {
	case s.polling <- struct{}{}:
	case <-s.ctx.Done():
		return s.cur
	}
	select {
	case s.cur = <-s.feed:
		s.mu.Lock()
		s.looks++
		s.mu.Unlock()
	case <-s.ctx.Done():
	}
	return s.cur
}

func (s *script) changed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.changes = append(s.changes, s.cur)
}

// awaitPoll waits until Run polls, that is until it has dealt with the
// fingerprint fed before.
func (s *script) awaitPoll() {
	s.t.Helper()
	select {
	case <-s.polling:
	case <-time.After(wait):
		s.t.Fatal("the watcher does not poll")
	}
}

// play feeds fingerprints one poll each and returns, once the last is
// dealt with, how many polls saw one and the changes reported.
func (s *script) play(fps ...string) (int, []string) {
	s.t.Helper()
	for _, fp := range fps {
		if !s.waiting {
			s.awaitPoll()
		}
		s.feed <- fp
		s.waiting = false
	}
	if !s.waiting {
		s.awaitPoll()
		s.waiting = true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.looks, slices.Clone(s.changes)
}

// runWatcher runs w with s as Look and Changed until the test ends.
func runWatcher(t *testing.T, settle bool, last string) *script {
	ctx, cancel := context.WithCancel(context.Background())
	s := newScript(t, ctx, last)
	w := Watcher{Interval: time.Millisecond, Look: s.look, Settle: settle, Changed: s.changed}
	done := make(chan struct{})
	go func() { w.Run(ctx, last); close(done) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(wait):
			t.Error("Run does not return once its context is done")
		}
	})
	return s
}

func TestWatcherReportsEachChange(t *testing.T) {
	s := runWatcher(t, false, "a")
	looks, changes := s.play("a", "b", "b", "c", "a", "a")
	if want := []string{"b", "c", "a"}; looks != 6 || !slices.Equal(changes, want) {
		t.Errorf("6 polls: %d looks, changes %q; want 6, %q", looks, changes, want)
	}
}

func TestWatcherSettles(t *testing.T) {
	s := runWatcher(t, true, "a")
	steps := []struct {
		name    string
		fps     []string
		changes []string // all so far
	}{
		{"unchanged", []string{"a", "a"}, nil},
		{"a change seen once waits", []string{"b"}, nil},
		{"a change seen twice is reported", []string{"b"}, []string{"b"}},
		{"and only once", []string{"b", "b"}, []string{"b"}},
		{"a change that moves on waits for the new one", []string{"c", "d"}, []string{"b"}},
		{"which is then reported", []string{"d"}, []string{"b", "d"}},
		{"a change undone before it settles is none", []string{"e", "d", "d"}, []string{"b", "d"}},
		{"a return to an earlier fingerprint is a change", []string{"a", "a"}, []string{"b", "d", "a"}},
	}
	for _, st := range steps {
		if _, changes := s.play(st.fps...); !slices.Equal(changes, st.changes) {
			t.Fatalf("%s: changes %q, want %q", st.name, changes, st.changes)
		}
	}
}

func TestWatcherChangeBeforeRun(t *testing.T) {
	// The fingerprint in force was taken before loading; the files changed
	// since, before the first poll.
	for _, settle := range []bool{false, true} {
		s := runWatcher(t, settle, "old")
		polls := []string{"new"}
		if settle {
			polls = append(polls, "new")
		}
		if _, changes := s.play(polls...); !slices.Equal(changes, []string{"new"}) {
			t.Errorf("settle %v: changes %q, want [new]", settle, changes)
		}
	}
}

func TestWatcherIntervalZeroNeverPolls(t *testing.T) {
	for _, interval := range []time.Duration{0, -time.Second} {
		w := Watcher{Interval: interval, Look: func() string {
			t.Errorf("interval %v: Look called", interval)
			return ""
		}, Changed: func() { t.Errorf("interval %v: Changed called", interval) }}
		done := make(chan struct{})
		go func() { w.Run(context.Background(), "a"); close(done) }()
		select {
		case <-done:
		case <-time.After(wait):
			t.Fatalf("interval %v: Run does not return", interval)
		}
	}
}

func TestEveryUntilDone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	done := make(chan struct{})
	go func() {
		Every(ctx, time.Millisecond, func() {
			if calls++; calls == 3 {
				cancel()
			}
		})
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("Every does not return once its context is done")
	}
	if calls < 3 {
		t.Errorf("Every returned after %d calls, want 3 or more (it was cancelled at the third)", calls)
	}
}
