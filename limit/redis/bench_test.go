package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// roundTrips is a go-redis hook counting commands and pipelines sent.
type roundTrips struct{ n atomic.Int64 }

func (r *roundTrips) DialHook(next goredis.DialHook) goredis.DialHook { return next }

func (r *roundTrips) ProcessHook(next goredis.ProcessHook) goredis.ProcessHook {
	return func(ctx context.Context, cmd goredis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmd)
	}
}

func (r *roundTrips) ProcessPipelineHook(next goredis.ProcessPipelineHook) goredis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []goredis.Cmder) error {
		r.n.Add(1)
		return next(ctx, cmds)
	}
}

// BenchmarkUpdate measures one Update over loopback, serially (latency)
// and from 8 and 32 goroutines per core (throughput: the more Updates wait
// at once, the more share a round trip, and the less each costs), with the
// round trips per Update, the client's CPU time per Update (cpu-ns/op: this
// process's) and Redis's (redis-cpu-ns/op: used_cpu_user and used_cpu_sys
// of INFO cpu: its script runs, commands and system calls) as metrics.
func BenchmarkUpdate(b *testing.B) {
	srv := redistest.Start(b)
	c := newClient(b, srv)
	var rt roundTrips
	c.AddHook(&rt)
	s := newStore(b, c, Options{})
	ctx := context.Background()
	for _, n := range []int{1, 5} {
		updates := batchOf(fmt.Sprint("bench", n), n)
		for i := range updates {
			updates[i].Policy.Max = counter.MaxPolicyValue
			updates[i].Policy.Window = time.Hour
		}
		if err := s.Update(ctx, t0, updates, make([]counter.Decision, n)); err != nil { // load the script
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("updates=%d", n), func(b *testing.B) {
			ds := make([]counter.Decision, n)
			b.ReportAllocs()
			start, cpu, rcpu := rt.n.Load(), processCPU(), redisCPU(b, c)
			for i := 0; b.Loop(); i++ {
				if err := s.Update(ctx, t0.Add(time.Duration(i)*time.Microsecond), updates, ds); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			b.ReportMetric(float64(redisCPU(b, c)-rcpu)/float64(b.N), "redis-cpu-ns/op")
			b.ReportMetric(float64(rt.n.Load()-start)/float64(b.N), "roundtrips/op")
		})
		for _, perCore := range []int{8, 32} {
			b.Run(fmt.Sprintf("updates=%d/parallel=%d", n, perCore), func(b *testing.B) {
				b.SetParallelism(perCore) // requests in flight per core
				b.ReportAllocs()
				start, cpu, rcpu := rt.n.Load(), processCPU(), redisCPU(b, c)
				b.RunParallel(func(pb *testing.PB) {
					ds := make([]counter.Decision, n)
					for pb.Next() {
						if err := s.Update(ctx, t0, updates, ds); err != nil {
							b.Error(err)
							return
						}
					}
				})
				reportCPU(b, cpu)
				b.ReportMetric(float64(redisCPU(b, c)-rcpu)/float64(b.N), "redis-cpu-ns/op")
				b.ReportMetric(float64(rt.n.Load()-start)/float64(b.N), "roundtrips/op")
			})
		}
	}
}

// reportCPU reports the process's CPU time since start per op, where it
// can be read.
func reportCPU(b *testing.B, start time.Duration) {
	if start > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// redisCPU returns the CPU time Redis has used, its main thread's and its
// other threads', in user and system mode, as INFO cpu reports them (to the
// microsecond).
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

// BenchmarkUpdateDown measures an Update while its Breaker knows Redis to
// be down: the answer without a round trip (roundtrips/op stays 0).
func BenchmarkUpdateDown(b *testing.B) {
	srv := redistest.Start(b)
	c := newClient(b, srv)
	var rt roundTrips
	c.AddHook(&rt)
	br, err := NewBreaker(c, BreakerOptions{ProbeInterval: time.Hour, CheckInterval: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(br.Close)
	s := newStore(b, c, Options{Breaker: br})
	updates := batchOf("benchdown", 3)
	ds := make([]counter.Decision, len(updates))
	srv.Kill()
	if err := s.Update(context.Background(), t0, updates, ds); err == nil {
		b.Fatal("Update with Redis killed succeeded")
	}
	b.ReportAllocs()
	start := rt.n.Load()
	for b.Loop() {
		if err := s.Update(context.Background(), t0, updates, ds); err == nil {
			b.Fatal("Update while down succeeded")
		}
	}
	b.ReportMetric(float64(rt.n.Load()-start)/float64(b.N), "roundtrips/op")
}
