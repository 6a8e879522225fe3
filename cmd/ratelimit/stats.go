package main

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// The per-rule statistics, in the reference's order and names.
var ruleStatNames = [...]string{"total_hits", "over_limit", "near_limit", "within_limit", "shadow_mode"}

// ruleStats are the counters of one statistics key.
type ruleStats [len(ruleStatNames)]atomic.Uint64

// stats holds every counter the service keeps under the reference's names
// (ratelimit.service...). It is safe for concurrent use.
type stats struct {
	rules sync.Map // stats key -> *ruleStats

	configLoadSuccess atomic.Uint64
	configLoadError   atomic.Uint64
	redisError        atomic.Uint64
	serviceError      atomic.Uint64
	calls             atomic.Uint64
	responseTimeSum   atomic.Int64 // nanoseconds
	globalShadowMode  atomic.Uint64

	mu    sync.Mutex
	times []time.Duration // response times since the last statsd flush
}

// observe adds one rule's counts.
func (s *stats) observe(key string, c envoyratelimit.RuleCounts) {
	v, ok := s.rules.Load(key)
	if !ok {
		v, _ = s.rules.LoadOrStore(key, new(ruleStats))
	}
	r := v.(*ruleStats)
	for i, n := range [...]uint64{c.TotalHits, c.OverLimit, c.NearLimit, c.WithinLimit, c.ShadowMode} {
		if n > 0 {
			r[i].Add(n)
		}
	}
}

// call records one call's outcome.
func (s *stats) call(d time.Duration, err error, shadowed bool, storeErr bool) {
	s.calls.Add(1)
	s.responseTimeSum.Add(int64(d))
	switch {
	case storeErr:
		s.redisError.Add(1)
	case err != nil:
		s.serviceError.Add(1)
	}
	if shadowed {
		s.globalShadowMode.Add(1)
	}
	s.mu.Lock()
	if len(s.times) < 100_000 {
		s.times = append(s.times, d)
	}
	s.mu.Unlock()
}

// sample is one counter's name and value.
type sample struct {
	name  string
	value uint64
}

// counters returns every counter, sorted by name: the service's and one per
// rule and statistic.
func (s *stats) counters() []sample {
	out := []sample{
		{"ratelimit.service.config_load_success", s.configLoadSuccess.Load()},
		{"ratelimit.service.config_load_error", s.configLoadError.Load()},
		{"ratelimit.service.global_shadow_mode", s.globalShadowMode.Load()},
		{"ratelimit.service.call.should_rate_limit.redis_error", s.redisError.Load()},
		{"ratelimit.service.call.should_rate_limit.service_error", s.serviceError.Load()},
	}
	s.rules.Range(func(k, v any) bool {
		r := v.(*ruleStats)
		for i, name := range ruleStatNames {
			out = append(out, sample{"ratelimit.service.rate_limit." + k.(string) + "." + name, r[i].Load()})
		}
		return true
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// takeTimes returns the response times since the last call.
func (s *stats) takeTimes() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.times
	s.times = nil
	return t
}

// text is the counters as "name: value" lines, for the debug port's /stats.
func (s *stats) text() string {
	var b strings.Builder
	for _, c := range s.counters() {
		b.WriteString(c.name)
		b.WriteString(": ")
		b.WriteString(uitoa(c.value))
		b.WriteByte('\n')
	}
	return b.String()
}

func uitoa(v uint64) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			return string(buf[i:])
		}
	}
}
