package main

import (
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rlpkit/rlpkit/limit/envoyratelimit"
)

// The reference's statistics of its gRPC server's calls of ShouldRateLimit:
// a counter, and a timer in milliseconds.
const (
	requestsStat     = "ratelimit_server.ShouldRateLimit.total_requests"
	responseTimeStat = "ratelimit_server.ShouldRateLimit.response_time"
)

// The per-rule statistics, in the reference's order and names.
var ruleStatNames = [...]string{"total_hits", "over_limit", "near_limit", "within_limit", "shadow_mode"}

// ruleStats are the counters of one statistics key.
type ruleStats [len(ruleStatNames)]atomic.Uint64

// stats holds every counter the service keeps under the reference's names
// (ratelimit.service...). It is safe for concurrent use.
type stats struct {
	rules    *ruleSet
	notFound *notFound

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

// newStats returns the statistics of a service keeping at most maxKeys
// statistics keys that hold request values.
func newStats(maxKeys int) *stats {
	return &stats{rules: newRuleSet(maxKeys), notFound: newNotFound(maxKeys)}
}

// observe adds one rule's counts; it is envoyratelimit.Options.Observe.
func (s *stats) observe(st envoyratelimit.Stat, c envoyratelimit.RuleCounts) {
	s.rules.observe(st, c)
}

// countOverError counts a failure to count a refused request's rejected
// hits (envoyratelimit.Options.OnCountOverError) as a redis_error: the
// call's answer stands, the store did fail.
func (s *stats) countOverError(error) {
	s.redisError.Add(1)
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

// serviceCounters returns the service's counters, not the rules', and
// each domain's domain_not_found.
func (s *stats) serviceCounters() []sample {
	return append([]sample{
		{"ratelimit.service.config_load_success", s.configLoadSuccess.Load()},
		{"ratelimit.service.config_load_error", s.configLoadError.Load()},
		{"ratelimit.service.global_shadow_mode", s.globalShadowMode.Load()},
		{"ratelimit.service.call.should_rate_limit.redis_error", s.redisError.Load()},
		{"ratelimit.service.call.should_rate_limit.service_error", s.serviceError.Load()},
		{requestsStat, s.calls.Load()},
	}, s.notFound.samples()...)
}

// counters returns every counter, sorted by name: the service's and one per
// rule and statistic (two keys that escape alike, see statName, are one).
func (s *stats) counters() []sample {
	byName := map[string]uint64{}
	for _, c := range s.serviceCounters() {
		byName[c.name] += c.value
	}
	for name, v := range s.rules.totals() {
		for i, stat := range ruleStatNames {
			byName[ruleStatPrefix+statName(name)+"."+stat] += v[i]
		}
	}
	out := make([]sample, 0, len(byName))
	for name, v := range byName {
		out = append(out, sample{name, v})
	}
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
