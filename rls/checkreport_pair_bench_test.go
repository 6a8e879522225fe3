package rls

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// benchTokenLimits are tokenLimits with budgets no benchmark exhausts, so
// that every check is admitted and every report settles a reservation.
var benchTokenLimits = func() []limitador.Limit {
	out := make([]limitador.Limit, len(tokenLimits))
	copy(out, tokenLimits)
	for i := range out {
		out[i].MaxValue = 1 << 31
	}
	return out
}()

// benchTokenCalls returns n users' check (max_tokens 100) and report (60
// tokens used, the check's reservation named) as they come off the wire.
func benchTokenCalls(b *testing.B, n int) (checks, reports [][]byte) {
	b.Helper()
	for i := range n {
		user := "u" + strconv.Itoa(i)
		for _, r := range []struct {
			out  *[][]byte
			hits uint32
			kv   []string
		}{{&checks, 100, nil}, {&reports, 60, []string{ReservedEntry, "100"}}} {
			data, err := proto.Marshal(tokenRequest(user, "paid", r.hits, r.kv...))
			if err != nil {
				b.Fatal(err)
			}
			*r.out = append(*r.out, data)
		}
	}
	return checks, reports
}

// benchStores are the stores BenchmarkCheckReport runs against, and how
// many calls each has in flight per core: Redis answers over the network,
// so it needs calls in flight to be kept busy. new returns the store and
// a reader of the CPU time its server has used (nil: none).
var benchStores = []struct {
	name        string
	parallelism int
	new         func(b *testing.B) (counter.Store, func() time.Duration)
}{
	{"memory", 1, func(*testing.B) (counter.Store, func() time.Duration) {
		return counter.NewMemoryStore(counter.MemoryOptions{}), nil
	}},
	{"redis", 16, func(b *testing.B) (counter.Store, func() time.Duration) {
		srv := redistest.Start(b)
		client, err := redis.NewClient(srv.URL())
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { client.Close() })
		st, err := redis.New(client, redis.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return st, func() time.Duration { return redisCPU(b, client) }
	}},
}

// redisCPU returns the CPU time Redis has used, user and system, as INFO
// cpu reports it (to the microsecond).
func redisCPU(b *testing.B, c goredis.UniversalClient) time.Duration {
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatalf("INFO cpu: %v", err)
	}
	var total time.Duration
	for line := range strings.SplitSeq(info, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || (name != "used_cpu_user" && name != "used_cpu_sys") {
			continue
		}
		secs, err := strconv.ParseFloat(value, 64)
		if err != nil {
			b.Fatalf("INFO cpu: %s is %q, not a number of seconds", name, value)
		}
		total += time.Duration(secs * float64(time.Second))
	}
	return total
}

// BenchmarkCheckReport is one token-limited request's two calls, a
// CheckRateLimit then its Report, decoded from the wire and decided as the
// gRPC handler does but without the network: the two limits of a
// TokenRateLimitPolicy on one descriptor, 1,024 users, memory and Redis,
// in Limitador's mode and in the reservation mode. One op is the pair.
// Besides wall time it reports the CPU time per pair of this process
// (cpu-ns/op) and of Redis (redis-cpu-ns/op), which hold on a machine
// other work shares.
func BenchmarkCheckReport(b *testing.B) {
	for _, st := range benchStores {
		for _, mode := range []Mode{ModeLimitador, ModeReserve} {
			b.Run(st.name+"/"+mode.String(), func(b *testing.B) {
				store, serverCPU := st.new(b)
				s, err := New(benchTokenLimits, Options{Store: store, Clock: fixedClock(t0), CheckReport: CheckReport{Mode: mode, DefaultEstimate: 100}})
				if err != nil {
					b.Fatal(err)
				}
				checks, reports := benchTokenCalls(b, 1024)
				ctx := context.Background()
				b.SetParallelism(st.parallelism)
				b.ReportAllocs()
				var rcpu time.Duration
				if serverCPU != nil {
					rcpu = serverCPU()
				}
				cpu := processCPU()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := 0
					for pb.Next() {
						for _, m := range []struct {
							method method
							data   []byte
						}{{methodCheck, checks[i%len(checks)]}, {methodReport, reports[i%len(reports)]}} {
							c := s.get()
							c.method = m.method
							err := c.decoded(c.dec.Decode(m.data, &c.req))
							if err == nil {
								err = s.decide(ctx, c)
							}
							if err == nil && c.res.Response.OverallCode != rlsmsg.CodeOK {
								b.Errorf("%s: overall code %d, want OK", m.method, c.res.Response.OverallCode)
							}
							s.release(c)
							if err != nil {
								b.Fatal(err)
							}
						}
						i++
					}
				})
				b.StopTimer()
				if cpu > 0 {
					b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
				}
				if serverCPU != nil {
					b.ReportMetric(float64(serverCPU()-rcpu)/float64(b.N), "redis-cpu-ns/op")
				}
			})
		}
	}
}
