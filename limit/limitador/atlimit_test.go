package limitador

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// TestEvaluatorExactAtTheLimit: 64 requests at once, each counted on a
// limit of 5 and on a wider one, are let through exactly 5 times, in
// memory and on Redis: the evaluator decides and charges a request in one
// Store.Update, all or nothing, so no request is decided on counts
// another has changed since.
func TestEvaluatorExactAtTheLimit(t *testing.T) {
	srv := redistest.Start(t)
	client, err := redis.NewClient(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	rs, err := redis.New(client, redis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []struct {
		name  string
		store counter.Store
	}{
		{"memory", counter.NewMemoryStore(counter.MemoryOptions{})},
		{"redis", rs},
	} {
		t.Run(st.name, func(t *testing.T) {
			e, err := NewEvaluator([]Limit{
				{Namespace: "d", MaxValue: 5, Seconds: 60, Variables: []string{"user"}},
				{Namespace: "d", MaxValue: 1000, Seconds: 3600, Variables: []string{"user"}},
			}, st.store)
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			var mu sync.Mutex
			var wg sync.WaitGroup
			admitted := 0
			start := make(chan struct{})
			for range 64 {
				wg.Go(func() {
					<-start
					req := rlsmsg.Request{Domain: "d", Descriptors: []rlsmsg.Descriptor{{Entries: entries("user", "alice")}}}
					var res limit.Result
					if err := e.Evaluate(context.Background(), now, &req, &res); err != nil {
						t.Error(err)
						return
					}
					if res.OverallCode == rlsmsg.CodeOK {
						mu.Lock()
						admitted++
						mu.Unlock()
					}
				})
			}
			close(start)
			wg.Wait()
			if admitted != 5 {
				t.Errorf("64 requests at once at a limit of 5: %d admitted, want exactly 5", admitted)
			}
		})
	}
}
