package httplimit_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/httplimit"
	limitredis "github.com/rlpkit/rlpkit/limit/redis"
)

// atLimitPlugins are two rate plugins on one key, a wide one first: a
// request is counted by each in its own Store.Update.
const atLimitPlugins = `
[plugins.wide]
category = "limit"
type = "rate"
tag = "header"
key = "X-User"
max = 1000
weight = 100
interval = "1h"

[plugins.perUser]
category = "limit"
type = "rate"
tag = "header"
key = "X-User"
max = 5
weight = 100
interval = "1h"
`

// TestConcurrentAtTheLimit: 64 requests at once through two rate plugins,
// the second of 5 an hour, get exactly 5 through, in memory and on Redis:
// each plugin decides and counts a request in one Store.Update, so none
// is let through on a count another has changed since. With an in-flight
// plugin of 5 in front of a handler that holds every request until all
// have arrived, exactly 5 are inside at once.
func TestConcurrentAtTheLimit(t *testing.T) {
	srv := redistest.Start(t)
	client, err := limitredis.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	rs, err := limitredis.New(client, limitredis.Options{KeyPrefix: "atlimit:"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_002_800, 0) // an hour's start
	for _, st := range []struct {
		name  string
		store counter.Store
	}{
		{"memory", counter.NewMemoryStore(counter.MemoryOptions{})},
		{"redis", rs},
	} {
		t.Run(st.name, func(t *testing.T) {
			set, err := httplimit.Load([]byte(atLimitPlugins), httplimit.WithStore(st.store), httplimit.WithClock(func() time.Time { return now }))
			if err != nil {
				t.Fatal(err)
			}
			h := set.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }))
			if got := concurrently(64, h); got[http.StatusNoContent] != 5 || got[http.StatusTooManyRequests] != 59 {
				t.Errorf("64 requests at once at a limit of 5: answers %v, want 5 x 204 and 59 x 429", got)
			}
		})
	}

	t.Run("inflight", func(t *testing.T) {
		set, err := httplimit.Load([]byte(`
[plugins.inflight]
category = "limit"
type = "inflight"
tag = "header"
key = "X-User"
max = 5
`))
		if err != nil {
			t.Fatal(err)
		}
		// The handler holds every request it gets until all 64 have
		// been decided (let in or rejected), so that the ones let in
		// are inside at once.
		release := make(chan struct{})
		var mu sync.Mutex
		decided := 0
		decide := func() {
			mu.Lock()
			defer mu.Unlock()
			if decided++; decided == 64 {
				close(release)
			}
		}
		h := set.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			decide()
			<-release
			w.WriteHeader(http.StatusNoContent)
		}))
		got := concurrentlyThen(64, h, func(int) { decide() })
		if got[http.StatusNoContent] != 5 || got[http.StatusTooManyRequests] != 59 {
			t.Errorf("64 requests at once at an in-flight limit of 5: answers %v, want 5 x 204 and 59 x 429", got)
		}
	})
}

// concurrently sends n requests of user alice to h at once and counts the
// answers by status.
func concurrently(n int, h http.Handler) map[int]int {
	return concurrentlyThen(n, h, nil)
}

// concurrentlyThen is concurrently, calling onRejected (when not nil)
// with the number of 429 answers so far after each.
func concurrentlyThen(n int, h http.Handler, onRejected func(int)) map[int]int {
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			r := httptest.NewRequest("GET", "http://proxy.test/", nil)
			r.Header.Set("X-User", "alice")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			mu.Lock()
			got[w.Code]++
			rejected := got[http.StatusTooManyRequests]
			mu.Unlock()
			if w.Code == http.StatusTooManyRequests && onRejected != nil {
				onRejected(rejected)
			}
		})
	}
	close(start)
	wg.Wait()
	return got
}
