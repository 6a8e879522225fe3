package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
)

const (
	// maxDatagram bounds one statsd UDP datagram, below common MTUs (the
	// reference's statistics library, gostats, sends 1,432 bytes at most).
	maxDatagram = 1432
	// maxTCPWrite is the most sent in one TCP write (gostats' buffer).
	maxTCPWrite = 1 << 16
	// maxPending bounds what is kept for a statsd server that cannot be
	// reached, the oldest dropped first (gostats keeps about 4 MiB).
	maxPending = 4 << 20
	// statsdDialTimeout bounds one connection attempt (gostats': 1.5 s).
	statsdDialTimeout = 1500 * time.Millisecond
)

// statsdSink sends the counters' increments and the response times to a
// statsd server every interval, as the reference's gostats does: over TCP
// by default, or UDP (STATSD_PROTOCOL), one "name:delta|c\n" line per
// counter and "ratelimit_server.ShouldRateLimit.response_time:ms|ms\n" per call, EXTRA_TAGS
// appended to every name as gostats writes tags (".__key=value"). The
// connection is made at the first flush and again after a failed write; a
// server that cannot be reached never stops the service: what could not be
// sent is kept (at most maxPending bytes, the oldest dropped) and sent once
// the server answers.
type statsdSink struct {
	stats    *stats
	network  string // tcp, tcp4, tcp6, udp, udp4 or udp6
	addr     string
	conn     net.Conn // nil until connected, and after a failed write
	interval time.Duration
	tags     string
	last     map[string]uint64 // the service's counters when last sent; the rules' keep theirs
	pending  []string          // lines not sent yet, oldest first
	size     int               // bytes of pending, newlines included
	down     bool              // the last attempt failed (logged once)
	log      *slog.Logger
}

func newStatsdSink(st *stats, network, addr string, interval time.Duration, tags []string, log *slog.Logger) *statsdSink {
	var t strings.Builder
	for _, kv := range tags {
		k, v, _ := strings.Cut(kv, ":")
		t.WriteString(".__" + k + "=" + v)
	}
	return &statsdSink{stats: st, network: network, addr: addr, interval: interval, tags: t.String(), last: map[string]uint64{}, log: log}
}

// run flushes every interval until ctx is done, then once more.
func (s *statsdSink) run(ctx context.Context) {
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.flush()
			if s.conn != nil {
				s.conn.Close()
			}
			return
		case <-t.C:
			s.flush()
		}
	}
}

// flush sends what changed since the last flush, and what an earlier
// flush could not send.
func (s *statsdSink) flush() {
	for _, c := range s.stats.serviceCounters() {
		if d := c.value - s.last[c.name]; d > 0 {
			s.queue(fmt.Sprintf("%s%s:%d|c", c.name, s.tags, d))
			s.last[c.name] = c.value
		}
	}
	for name, v := range s.stats.rules.unsent() {
		for i, stat := range ruleStatNames {
			if v[i] > 0 {
				s.queue(fmt.Sprintf("%s%s.%s%s:%d|c", ruleStatPrefix, statName(name), stat, s.tags, v[i]))
			}
		}
	}
	for _, d := range s.stats.takeTimes() {
		s.queue(fmt.Sprintf("%s%s:%g|ms", responseTimeStat, s.tags, float64(d.Microseconds())/1000))
	}
	s.send()
}

// queue adds a line to send, dropping the oldest beyond maxPending.
func (s *statsdSink) queue(line string) {
	s.pending = append(s.pending, line)
	s.size += len(line) + 1
	for s.size > maxPending && len(s.pending) > 1 {
		s.size -= len(s.pending[0]) + 1
		s.pending[0] = ""
		s.pending = s.pending[1:]
	}
}

// send writes the pending lines in chunks of at most one datagram (UDP)
// or one buffer (TCP), each line ending in a newline; a chunk that cannot
// be written stays pending with the lines after it.
func (s *statsdSink) send() {
	if len(s.pending) == 0 || !s.connect() {
		return
	}
	limit := maxTCPWrite
	if strings.HasPrefix(s.network, "udp") {
		limit = maxDatagram
	}
	var b strings.Builder
	for len(s.pending) > 0 {
		n := 0 // lines in this chunk
		b.Reset()
		for _, l := range s.pending {
			if n > 0 && b.Len()+len(l)+1 > limit {
				break
			}
			b.WriteString(l)
			b.WriteByte('\n')
			n++
		}
		s.conn.SetWriteDeadline(time.Now().Add(time.Second))
		if _, err := s.conn.Write([]byte(b.String())); err != nil {
			s.log.Debug("statsd write failed", "err", err)
			s.conn.Close()
			s.conn = nil
			return
		}
		clear(s.pending[:n])
		s.pending = s.pending[n:]
		s.size -= b.Len()
	}
	s.pending = nil
}

// connect dials the statsd server when not connected, and reports whether
// it is.
func (s *statsdSink) connect() bool {
	if s.conn != nil && !strings.HasPrefix(s.network, "udp") && closedByPeer(s.conn) {
		// A write to it would be taken by the kernel and lost.
		s.conn.Close()
		s.conn = nil
	}
	if s.conn != nil {
		return true
	}
	conn, err := net.DialTimeout(s.network, s.addr, statsdDialTimeout)
	if err != nil {
		if !s.down {
			s.log.Warn("statsd unreachable; statistics are kept until it answers", "addr", s.addr, "protocol", s.network, "err", err)
		}
		s.down = true
		return false
	}
	if s.down {
		s.log.Info("statsd reachable again", "addr", s.addr)
	}
	s.conn, s.down = conn, false
	return true
}

// closedByPeer reports whether statsd closed the TCP connection conn: it
// never sends, so a read that does not time out within a millisecond
// found the end of the stream or an error.
func closedByPeer(conn net.Conn) bool {
	conn.SetReadDeadline(time.Now().Add(time.Millisecond))
	var b [1]byte
	_, err := conn.Read(b[:])
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}
