package httplimit_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/httplimit"
	limitredis "github.com/rlpkit/rlpkit/limit/redis"
)

// quiet drops go-redis's log lines (dial failures while a test has killed
// the server); the errors that matter reach the tests through the store.
type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	goredis.SetLogger(quiet{})
	os.Exit(m.Run())
}

const redisLimits = `
[plugins.perIP]
category = "limit"
type = "rate"
tag = "ip"
max = 4
weight = 100
interval = "1m"
`

// instance is one program with its own Redis client, as one replica of a
// proxy would be.
func instance(t *testing.T, url string, opts ...httplimit.Option) http.Handler {
	t.Helper()
	client, err := limitredis.NewClient(url)
	if err != nil {
		t.Fatalf("NewClient(%q) error: %v", url, err)
	}
	t.Cleanup(func() { client.Close() })
	store, err := limitredis.New(client, limitredis.Options{KeyPrefix: "test:"})
	if err != nil {
		t.Fatalf("redis.New error: %v", err)
	}
	set, err := httplimit.Load([]byte(redisLimits), append(opts, httplimit.WithStore(store))...)
	if err != nil {
		t.Fatalf("Load error: %v", err)
	}
	return set.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
}

type answer struct {
	status           int
	body, retryAfter string
}

func get(h http.Handler) answer {
	r := httptest.NewRequest("GET", "http://proxy.test/", nil)
	r.RemoteAddr = "192.0.2.1:5000"
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return answer{w.Code, w.Body.String(), w.Header().Get("Retry-After")}
}

// TestRedisSharedBudget runs two instances on one Redis: together they admit
// the plugin's max, not twice it. A server that dies rejects with 503 (or
// lets through, when the instance says so), and one that comes back empty
// starts counting afresh.
func TestRedisSharedBudget(t *testing.T) {
	srv := redistest.Start(t)
	now := time.Unix(1_700_000_040, 0) // a window start
	clock := func() time.Time { return now }
	a := instance(t, srv.URL(), httplimit.WithClock(clock))
	var storeErrs int
	b := instance(t, srv.URL(), httplimit.WithClock(clock), httplimit.WithStoreErrorHandler(func(*http.Request, error) bool {
		storeErrs++
		return true
	}))

	ok := answer{200, "ok", ""}
	over := answer{429, "exceed limit 5/4", "60"}
	steps := []struct {
		name string
		h    http.Handler
		want answer
	}{
		{"a", a, ok}, {"b", b, ok}, {"a", a, ok}, {"b", b, ok},
		{"a", a, over}, {"b", b, over},
	}
	for i, s := range steps {
		if got := get(s.h); got != s.want {
			t.Fatalf("request %d to instance %s = %+v, want %+v", i, s.name, got, s.want)
		}
	}

	srv.Kill()
	if got, want := get(a), (answer{503, "rate limit unavailable", ""}); got != want {
		t.Errorf("instance a with Redis down = %+v, want %+v", got, want)
	}
	if got := get(b); got != ok || storeErrs != 1 {
		t.Errorf("instance b with Redis down = %+v after %d store errors, want %+v after 1", got, storeErrs, ok)
	}

	srv.Restart(t)
	deadline := time.Now().Add(5 * time.Second)
	got := get(a)
	for got.status == 503 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // the pool reconnects
		got = get(a)
	}
	if got != ok {
		t.Errorf("instance a after Redis restarted empty = %+v, want %+v", got, ok)
	}
}
