package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// statsdSink sends the counters' increments and the response times to a
// statsd server (over TCP unless STATSD_PROTOCOL says udp) every interval,
// as the reference's gostats does:
// "name:delta|c" and "ratelimit_server.ShouldRateLimit.response_time:ms|ms", EXTRA_TAGS
// appended to every name as gostats writes tags (".__key=value").
type statsdSink struct {
	stats    *stats
	w        *statsdWriter
	interval time.Duration
	tags     string
	last     map[string]uint64 // the service's counters when last sent; the rules' keep theirs
	log      *slog.Logger
}

func newStatsdSink(st *stats, network, addr string, interval time.Duration, tags []string, log *slog.Logger) (*statsdSink, error) {
	w, err := newStatsdWriter(network, addr, log)
	if err != nil {
		return nil, err
	}
	var t strings.Builder
	for _, kv := range tags {
		k, v, _ := strings.Cut(kv, ":")
		t.WriteString(".__" + k + "=" + v)
	}
	return &statsdSink{stats: st, w: w, interval: interval, tags: t.String(), last: map[string]uint64{}, log: log}, nil
}

// run flushes every interval until ctx is done, then once more.
func (s *statsdSink) run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.flush()
			s.w.close()
			return
		case <-t.C:
			s.flush()
		}
	}
}

// flush sends what changed since the last flush.
func (s *statsdSink) flush() {
	var lines []string
	for _, c := range s.stats.serviceCounters() {
		if d := c.value - s.last[c.name]; d > 0 {
			lines = append(lines, fmt.Sprintf("%s%s:%d|c", c.name, s.tags, d))
			s.last[c.name] = c.value
		}
	}
	for name, v := range s.stats.rules.unsent() {
		for i, stat := range ruleStatNames {
			if v[i] > 0 {
				lines = append(lines, fmt.Sprintf("%s%s.%s%s:%d|c", ruleStatPrefix, statName(name), stat, s.tags, v[i]))
			}
		}
	}
	for _, d := range s.stats.takeTimes() {
		lines = append(lines, fmt.Sprintf("%s%s:%g|ms", responseTimeStat, s.tags, float64(d.Microseconds())/1000))
	}
	s.w.write(lines)
}
