package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// config is the command line.
type config struct {
	addr             string
	duration, warmup time.Duration
	timeout          time.Duration
	concurrency      int
	conns            int
	window           int32 // the client's HTTP/2 stream and connection windows; 0: grpc-go's dynamic ones
	users            int
	descriptors      int
	domain           string
	redisURL         string
	serverPID        int     // measure this process's CPU time; 0: none
	calls            int     // end the measured phase after this many calls; 0: at duration
	rate             float64 // calls per second offered, spread over the callers; 0: a closed loop
}

// report is what a run measured.
type report struct {
	calls, ok, over int
	errors          map[string]int
	elapsed         time.Duration
	latencies       []time.Duration // sorted
	concurrency     int
	descriptors     int
	rate            float64     // the offered calls per second; 0: a closed loop
	redis           *redisStats // nil without -redis
	// serverCPU and redisCPU are the CPU time the server process and
	// redis-server used during the measured phase; 0 when not measured.
	serverCPU, redisCPU time.Duration
	// serverMemory is the server process's resident set after the
	// measured phase; zero when not measured.
	serverMemory procMemory
}

// load sends calls for the warm-up and then for the measured duration.
func load(ctx context.Context, c config) (*report, error) {
	clients := make([]rlsv3.RateLimitServiceClient, c.conns)
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if c.window > 0 {
		opts = append(opts, grpc.WithInitialWindowSize(c.window), grpc.WithInitialConnWindowSize(c.window))
	}
	for i := range clients {
		conn, err := grpc.NewClient(c.addr, opts...)
		if err != nil {
			return nil, fmt.Errorf("rlsload: %w", err)
		}
		defer conn.Close()
		clients[i] = rlsv3.NewRateLimitServiceClient(conn)
	}
	reqs := requests(c)
	if _, err := clients[0].ShouldRateLimit(ctx, reqs[0]); err != nil {
		return nil, fmt.Errorf("rlsload: first call to %s: %w", c.addr, err)
	}
	if c.warmup > 0 {
		if _, err := phase(ctx, c, clients, reqs, c.warmup, false); err != nil {
			return nil, err
		}
	}
	// -redis may name several servers (a Cluster's masters): their
	// commands and CPU time are added up.
	var rss []*redisClient
	server := cpuMeter{pid: c.serverPID}
	var redisCPU []cpuMeter
	for _, url := range splitURLs(c.redisURL) {
		rs, err := newRedisClient(url)
		if err != nil {
			return nil, err
		}
		defer rs.close()
		if err := rs.reset(ctx); err != nil {
			return nil, err
		}
		m := cpuMeter{}
		if m.pid, err = rs.localPID(ctx); err != nil {
			return nil, err
		}
		rss, redisCPU = append(rss, rs), append(redisCPU, m)
	}
	errs := []error{server.begin()}
	for i := range redisCPU {
		errs = append(errs, redisCPU[i].begin())
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	r, err := phase(ctx, c, clients, reqs, c.duration, true)
	if err != nil {
		return nil, err
	}
	var err1 error
	r.serverCPU, err1 = server.end()
	errs = []error{err1}
	for i := range redisCPU {
		d, err := redisCPU[i].end()
		r.redisCPU += d
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if c.serverPID != 0 {
		if r.serverMemory, err = memoryOf(c.serverPID); err != nil {
			return nil, err
		}
	}
	for _, rs := range rss {
		st, err := rs.stats(ctx)
		if err != nil {
			return nil, err
		}
		r.redis = r.redis.add(st)
	}
	return r, nil
}

// splitURLs splits -redis's comma-separated URLs; none for "".
func splitURLs(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// requests builds one request per user, reused for the whole run.
func requests(c config) []*rlsv3.RateLimitRequest {
	reqs := make([]*rlsv3.RateLimitRequest, c.users)
	for u := range reqs {
		req := &rlsv3.RateLimitRequest{Domain: c.domain}
		user := "u" + strconv.Itoa(u)
		for i := range c.descriptors {
			d := &rlcommon.RateLimitDescriptor{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "user", Value: user}}}
			if i > 0 {
				d.Entries = append(d.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: "n", Value: strconv.Itoa(i)})
			}
			req.Descriptors = append(req.Descriptors, d)
		}
		reqs[u] = req
	}
	return reqs
}

// phase keeps c.concurrency calls in flight for d, or with c.rate starts
// calls at that rate with at most c.concurrency in flight (see pacer), and,
// when measure is set, reports them; with c.calls, a measured phase ends
// after that many calls if d has not passed.
func phase(ctx context.Context, c config, clients []rlsv3.RateLimitServiceClient, reqs []*rlsv3.RateLimitRequest, d time.Duration, measure bool) (*report, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var next, sent atomic.Int64
	limit := int64(0)
	if measure {
		limit = int64(c.calls)
	}
	type result struct {
		lat      []time.Duration
		ok, over int
		errors   map[string]int
	}
	results := make([]result, c.concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	pace := newPacer(start, c.rate, c.concurrency)
	for w := range c.concurrency {
		wg.Go(func() {
			res := &results[w]
			res.errors = map[string]int{}
			client := clients[w%len(clients)]
			for k := 0; ctx.Err() == nil; k++ {
				var late time.Time // a paced call's slot, when it starts late
				if pace != nil {
					var ok bool
					if late, ok = pace.wait(ctx, w, k); !ok {
						break
					}
				}
				if limit > 0 && sent.Add(1) > limit {
					break
				}
				req := reqs[int(next.Add(1))%len(reqs)]
				cctx, ccancel := context.WithTimeout(context.Background(), c.timeout)
				t0 := time.Now()
				if !late.IsZero() {
					t0 = late
				}
				resp, err := client.ShouldRateLimit(cctx, req)
				lat := time.Since(t0)
				ccancel()
				if !measure {
					continue
				}
				res.lat = append(res.lat, lat)
				switch {
				case err != nil:
					res.errors[status.Code(err).String()]++
				case resp.GetOverallCode() == rlsv3.RateLimitResponse_OK:
					res.ok++
				default:
					res.over++
				}
			}
		})
	}
	wg.Wait()
	r := &report{errors: map[string]int{}, elapsed: time.Since(start), concurrency: c.concurrency, descriptors: c.descriptors, rate: c.rate}
	for _, res := range results {
		r.latencies = append(r.latencies, res.lat...)
		r.ok += res.ok
		r.over += res.over
		for k, v := range res.errors {
			r.errors[k] += v
		}
	}
	r.calls = len(r.latencies)
	slices.Sort(r.latencies)
	return r, nil
}

// percentile returns the p-th percentile (0-100) of the sorted latencies.
func (r *report) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(p / 100 * float64(len(r.latencies)-1))
	return r.latencies[i]
}

// perDecision returns d per call in microseconds.
func (r *report) perDecision(d time.Duration) float64 {
	return float64(d.Microseconds()) / float64(max(r.calls, 1))
}

// scripts returns the script calls Redis ran and all its commands, those
// the scripts ran included.
func (r *report) scripts() (scripts, commands int) {
	if r.redis == nil {
		return 0, 0
	}
	for _, c := range r.redis.commands {
		if isScriptCall(c.name) {
			scripts += c.calls
		}
	}
	return scripts, r.redis.total
}

func (r *report) print(w io.Writer) {
	inFlight := fmt.Sprintf("%d in flight", r.concurrency)
	if r.rate > 0 {
		inFlight = fmt.Sprintf("%.0f/s offered, at most %d in flight", r.rate, r.concurrency)
	}
	fmt.Fprintf(w, "calls          %d in %v (%s, %d descriptors each)\n", r.calls, r.elapsed.Round(time.Millisecond), inFlight, r.descriptors)
	fmt.Fprintf(w, "decisions/s    %.0f\n", float64(r.calls)/r.elapsed.Seconds())
	fmt.Fprintf(w, "latency        p50 %v  p90 %v  p99 %v  p99.9 %v  max %v\n",
		r.percentile(50), r.percentile(90), r.percentile(99), r.percentile(99.9), r.percentile(100))
	fmt.Fprintf(w, "answers        OK %d  OVER_LIMIT %d", r.ok, r.over)
	keys := make([]string, 0, len(r.errors))
	for k := range r.errors {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %s %d", k, r.errors[k])
	}
	fmt.Fprintln(w)
	if r.serverCPU > 0 {
		fmt.Fprintf(w, "server CPU     %v, %.1f us per decision\n", r.serverCPU, r.perDecision(r.serverCPU))
	}
	if r.redisCPU > 0 {
		fmt.Fprintf(w, "redis CPU      %v, %.1f us per decision\n", r.redisCPU, r.perDecision(r.redisCPU))
	}
	if m := r.serverMemory; m.rss > 0 {
		fmt.Fprintf(w, "server memory  VmRSS %.1f MB, VmHWM %.1f MB\n", float64(m.rss)/1e6, float64(m.hwm)/1e6)
	}
	if r.redis != nil {
		scripts, _ := r.scripts()
		var parts []string
		for _, c := range r.redis.commands {
			parts = append(parts, fmt.Sprintf("%s %d", c.name, c.calls))
		}
		fmt.Fprintf(w, "redis scripts  %d, %.3f per decision\n", scripts, float64(scripts)/float64(max(r.calls, 1)))
		fmt.Fprintf(w, "redis commands %s (those the scripts run included)\n", strings.Join(parts, ", "))
		if r.redis.reads >= 0 {
			fmt.Fprintf(w, "redis reads    %d, %.3f per decision (round trips)\n", r.redis.reads, float64(r.redis.reads)/float64(max(r.calls, 1)))
		}
	}
}
