package httplimit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// TestCharge charges 60 tokens after each answer against a budget of 100 per window: the
// third request of the same client is refused, where it would pass on request counts, and
// both chained rate limiters are charged.
func TestCharge(t *testing.T) {
	clock := newFakeClock()
	clock.Set(clock.Now().Truncate(10 * time.Second))
	byIP := mustNew(t, "ip", validConfig(func(c *Config) { c.Max, c.Interval, c.Weight = 100, 10*time.Second, 100 }), WithClock(clock.Now))
	byUser := mustNew(t, "user", validConfig(func(c *Config) {
		c.Max, c.Interval, c.Weight, c.Tag, c.Key = 100, 10*time.Second, 100, TagHeader, "X-User"
	}), WithClock(clock.Now))
	var chargeErr error
	h := byIP.Handler(byUser.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("answer"))
		chargeErr = Charge(r, 60)
	})))
	user := func(name string) func(*http.Request) { return func(r *http.Request) { r.Header.Set("X-User", name) } }
	codes := []int{}
	for range 3 {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, request(user("alice")))
		if chargeErr != nil {
			t.Fatalf("Charge: %v", chargeErr)
		}
		codes = append(codes, w.Code)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 429 {
		t.Fatalf("codes %v, want 200 200 429: 61 then 122 hits of 100", codes)
	}
	// Another client under the same user: the user limiter was charged too.
	w := httptest.NewRecorder()
	h.ServeHTTP(w, request(user("alice"), func(r *http.Request) { r.RemoteAddr = "192.0.2.9:1" }))
	if w.Code != 429 || !strings.Contains(w.Body.String(), "exceed limit") {
		t.Errorf("alice from another address = %d %q, want 429 from the user limiter", w.Code, w.Body.String())
	}
}

// noAdjust is a store without counter.Adjuster.
type noAdjust struct{ counter.Store }

func TestChargeErrors(t *testing.T) {
	if err := Charge(request(), 5); err != nil {
		t.Errorf("Charge on a request no limiter counted = %v, want nil", err)
	}
	l := mustNew(t, "plain", validConfig(nil), WithStore(noAdjust{counter.NewMemoryStore(counter.MemoryOptions{})}))
	var err error
	l.Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { err = Charge(r, 5) })).ServeHTTP(httptest.NewRecorder(), request())
	if err == nil || !strings.Contains(err.Error(), "plugin plain") || !strings.Contains(err.Error(), "counter.Adjuster") {
		t.Errorf("Charge with a store that cannot adjust = %v, want an error naming the plugin", err)
	}
}
