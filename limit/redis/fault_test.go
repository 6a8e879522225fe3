package redis

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestServerKilled crashes Redis while goroutines are updating: every
// Update returns (an error or a decision, never a panic), and after a
// restart the same Store decides again, from empty counters.
func TestServerKilled(t *testing.T) {
	srv := redistest.Start(t)
	// A long read timeout: only the contexts' deadlines can end a call.
	c, err := NewClient(srv.URL() + "?read_timeout=1h&write_timeout=1h&dial_timeout=1h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s := newStore(t, c, Options{})
	p := counter.Policy{Max: 1_000_000, Window: time.Hour}
	update := func(key string) (counter.Decision, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ds := make([]counter.Decision, 1)
		err := s.Update(ctx, t0, []counter.Update{{Key: key, Policy: p, Cost: 1}}, ds)
		return ds[0], err
	}

	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		oks     int
		errs    int
		killed  = make(chan struct{})
		running sync.WaitGroup
	)
	running.Add(4)
	for g := range 4 {
		wg.Go(func() {
			key := fmt.Sprintf("{fault}g%d", g)
			for i := 0; ; i++ {
				_, err := update(key)
				mu.Lock()
				if err != nil {
					errs++
				} else {
					oks++
				}
				mu.Unlock()
				if i == 20 {
					running.Done()
				}
				select {
				case <-killed:
					if i > 20 {
						// One more round after the kill, then stop.
						_, err := update(key)
						if err == nil {
							t.Errorf("goroutine %d: Update after Kill succeeded", g)
						}
						return
					}
				default:
				}
			}
		})
	}
	running.Wait()
	srv.Kill()
	close(killed)
	wg.Wait()
	if oks < 4*20 {
		t.Errorf("%d Updates succeeded before the kill, want at least %d", oks, 4*20)
	}

	srv.Restart(t)
	var d counter.Decision
	for attempt := 0; ; attempt++ {
		// Pooled connections to the dead server fail first; go-redis
		// replaces them.
		if d, err = update("{fault}g0"); err == nil {
			break
		}
		if attempt == 50 {
			t.Fatalf("Update after Restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	want := counter.Decision{Allowed: true, Used: 1, Remaining: p.Max - 1, ResetAfter: time.Hour}
	if d != want {
		t.Errorf("first Update after Restart = %+v, want %+v (the restarted server is empty)", d, want)
	}
}

// TestServerHung freezes Redis: an Update returns an error when its
// context's deadline passes (the client's own timeouts are an hour), and
// the Store works again once the server resumes.
func TestServerHung(t *testing.T) {
	srv := redistest.Start(t)
	c := newPatientClient(t, srv)
	s := newStore(t, c, Options{})
	u := []counter.Update{{Key: "{hung}k", Policy: counter.Policy{Max: 10, Window: time.Hour}, Cost: 1}}
	ds := make([]counter.Decision, 1)
	if err := s.Update(context.Background(), t0, u, ds); err != nil {
		t.Fatal(err)
	}

	srv.Pause(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err := s.Update(ctx, t0, u, ds)
	cancel()
	if err == nil {
		t.Fatalf("Update on a frozen server = nil error, want one")
	}
	if ctx.Err() == nil {
		t.Fatalf("Update on a frozen server returned %v before its deadline", err)
	}
	srv.Resume(t)

	for attempt := 0; ; attempt++ {
		if err = s.Update(context.Background(), t0, u, ds); err == nil {
			break
		}
		if attempt == 50 {
			t.Fatalf("Update after Resume: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !ds[0].Allowed {
		t.Errorf("Update after Resume = %+v, want allowed", ds[0])
	}
}

// TestCanceledContext: an Update with a canceled context fails and
// counts nothing.
func TestCanceledContext(t *testing.T) {
	srv := redistest.Start(t)
	s := newStore(t, newClient(t, srv), Options{})
	u := []counter.Update{{Key: "{cancel}k", Policy: counter.Policy{Max: 10, Window: time.Hour}, Cost: 1}}
	ds := make([]counter.Decision, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Update(ctx, t0, u, ds); err == nil {
		t.Fatal("Update with a canceled context = nil error, want one")
	}
	if err := s.Update(context.Background(), t0, u, ds); err != nil {
		t.Fatal(err)
	}
	if ds[0].Used != 1 {
		t.Errorf("Update after a canceled one = %+v, want Used 1", ds[0])
	}
}
