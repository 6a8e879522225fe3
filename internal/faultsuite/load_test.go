package faultsuite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// faultDomain is the domain of every request of the Redis fault tests.
const faultDomain = "fault"

// users are the values of the "user" entry the clients send: tokens of one
// length, none a part of another, so that a key holding anything but
// exactly one of them is a key no client asked for.
var users = func() []string {
	out := make([]string, 24)
	for i := range out {
		out[i] = fmt.Sprintf("tok%02dx%06x", i, 0x9e3779*(i+1)&0xffffff)
	}
	return out
}()

// roles are the entry keys a user is sent under: "user" in every call and
// "peer" in the second descriptor of a third of them. Each has a limit of
// its own, so a call of two descriptors charges two counters with every
// format (Limitador's merges the entries of all descriptors into one map,
// where a second "user" would replace the first).
var roles = []string{"user", "peer"}

// counterName names a (role, user) counter in a tally.
func counterName(role, user string) string { return role + ":" + user }

// tally counts what the clients sent and were answered, per counter
// (counterName).
type tally struct {
	sent     map[string]*atomic.Int64 // hits sent for a counter (requests naming it)
	admitted map[string]*atomic.Int64 // hits of requests answered OK
	over     map[string]*atomic.Int64 // requests naming the counter answered OVER_LIMIT
	codes    sync.Map                 // gRPC code -> *atomic.Int64
}

func newTally() *tally {
	t := &tally{sent: map[string]*atomic.Int64{}, admitted: map[string]*atomic.Int64{}, over: map[string]*atomic.Int64{}}
	for _, u := range users {
		for _, r := range roles {
			n := counterName(r, u)
			t.sent[n], t.admitted[n], t.over[n] = new(atomic.Int64), new(atomic.Int64), new(atomic.Int64)
		}
	}
	return t
}

// sentFor returns the hits sent for user in every role.
func (t *tally) sentFor(user string) int64 {
	var n int64
	for _, r := range roles {
		n += t.sent[counterName(r, user)].Load()
	}
	return n
}

// call sends one request naming us (the first as "user", the second as
// "peer") with deadline d and records it; it returns the answer's overall
// code or the error's.
func (t *tally) call(c rlsv3.RateLimitServiceClient, us []string, d time.Duration) (rlsv3.RateLimitResponse_Code, codes.Code) {
	req := &rlsv3.RateLimitRequest{Domain: faultDomain}
	var names []string
	for i, u := range us {
		req.Descriptors = append(req.Descriptors, &rlcommon.RateLimitDescriptor{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: roles[i], Value: u}}})
		names = append(names, counterName(roles[i], u))
		t.sent[names[i]].Add(1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	resp, err := c.ShouldRateLimit(ctx, req)
	code := status.Code(err)
	n, _ := t.codes.LoadOrStore(code, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	if err != nil {
		return rlsv3.RateLimitResponse_UNKNOWN, code
	}
	for _, n := range names {
		switch resp.GetOverallCode() {
		case rlsv3.RateLimitResponse_OK:
			t.admitted[n].Add(1)
		case rlsv3.RateLimitResponse_OVER_LIMIT:
			t.over[n].Add(1)
		}
	}
	return resp.GetOverallCode(), codes.OK
}

// deadlines are the clients' call deadlines: mostly a few milliseconds, as
// Envoy's rate-limit filter gives (20 ms by default), some longer.
var deadlines = []time.Duration{2 * time.Millisecond, 3 * time.Millisecond, 5 * time.Millisecond, 8 * time.Millisecond, 20 * time.Millisecond, 100 * time.Millisecond}

// load runs clients goroutines of random calls (a user, and in a third of
// the calls a distinct peer) until stop is closed.
func (t *tally) load(c rlsv3.RateLimitServiceClient, clients int, stop <-chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
			for {
				select {
				case <-stop:
					return
				default:
				}
				us := []string{users[r.IntN(len(users))]}
				if r.IntN(3) == 0 {
					if v := users[r.IntN(len(users))]; v != us[0] {
						us = append(us, v)
					}
				}
				t.call(c, us, deadlines[r.IntN(len(deadlines))])
			}
		}()
	}
	return &wg
}

// exhaust sends each user calls of its own (as "user"), with a generous
// deadline, until one is answered OVER_LIMIT, giving up after budget+extra answered calls or
// 30 s; it fails the test for a user never answered OVER_LIMIT.
func (t *tally) exhaust(tb testing.TB, c rlsv3.RateLimitServiceClient, budget int) {
	tb.Helper()
	var wg sync.WaitGroup
	failed := make(chan string, len(users))
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answered := 0
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && answered <= budget+20; {
				code, err := t.call(c, []string{u}, 2*time.Second)
				switch {
				case code == rlsv3.RateLimitResponse_OVER_LIMIT:
					return
				case err == codes.OK:
					answered++
				default:
					time.Sleep(20 * time.Millisecond) // the store is coming back
				}
			}
			failed <- u
		}()
	}
	wg.Wait()
	close(failed)
	for u := range failed {
		n := counterName("user", u)
		tb.Errorf("user %s was never answered OVER_LIMIT (admitted %d of budget %d, sent %d)", u, t.admitted[n].Load(), budget, t.sent[n].Load())
	}
}

// codeCounts returns the answers by gRPC code, for logs.
func (t *tally) codeCounts() map[string]int64 {
	out := map[string]int64{}
	t.codes.Range(func(k, v any) bool {
		out[k.(codes.Code).String()] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

// bigRequest is a request of n descriptors, each one entry "k" with a value
// of valueLen bytes (distinct per descriptor) and a limit override, so
// that every descriptor is a counter of its own.
func bigRequest(n, valueLen int) *rlsv3.RateLimitRequest {
	req := &rlsv3.RateLimitRequest{Domain: faultDomain}
	for i := range n {
		v := strconv.Itoa(i)
		v = strings.Repeat("0", max(0, valueLen-len(v))) + v // fmt refuses widths over a million
		req.Descriptors = append(req.Descriptors, &rlcommon.RateLimitDescriptor{
			Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "k", Value: v}},
			Limit:   &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: 1 << 30, Unit: typev3.RateLimitUnit_HOUR},
		})
	}
	return req
}
