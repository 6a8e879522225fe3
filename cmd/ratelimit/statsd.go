package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
)

// maxDatagram bounds one statsd UDP datagram, below common MTUs.
const maxDatagram = 1432

// statsdSink sends the counters' increments and the response times to a
// statsd server over UDP every interval, as the reference's gostats does:
// "name:delta|c" and "ratelimit.service.response_time:ms|ms", EXTRA_TAGS
// appended to every name as gostats writes tags (".__key=value").
type statsdSink struct {
	stats    *stats
	conn     net.Conn
	interval time.Duration
	tags     string
	last     map[string]uint64 // the service's counters when last sent; the rules' keep theirs
	log      *slog.Logger
}

func newStatsdSink(st *stats, addr string, interval time.Duration, tags []string, log *slog.Logger) (*statsdSink, error) {
	conn, err := net.Dial("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("STATSD_HOST, STATSD_PORT: %w", err)
	}
	var t strings.Builder
	for _, kv := range tags {
		k, v, _ := strings.Cut(kv, ":")
		t.WriteString(".__" + k + "=" + v)
	}
	return &statsdSink{stats: st, conn: conn, interval: interval, tags: t.String(), last: map[string]uint64{}, log: log}, nil
}

// run flushes every interval until ctx is done, then once more.
func (s *statsdSink) run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.flush()
			s.conn.Close()
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
		lines = append(lines, fmt.Sprintf("ratelimit.service.response_time%s:%g|ms", s.tags, float64(d.Microseconds())/1000))
	}
	var b strings.Builder
	send := func() {
		if b.Len() == 0 {
			return
		}
		if _, err := s.conn.Write([]byte(b.String())); err != nil {
			s.log.Debug("statsd write failed", "err", err)
		}
		b.Reset()
	}
	for _, l := range lines {
		if b.Len() > 0 && b.Len()+1+len(l) > maxDatagram {
			send()
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	send()
}
