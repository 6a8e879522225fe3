package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"
)

// maxDatagram bounds one statsd UDP datagram, below common MTUs.
const maxDatagram = 1432

// statsdDialTimeout bounds the making of a TCP connection to statsd.
const statsdDialTimeout = time.Second

// statsdWriter sends statsd lines: over UDP in datagrams of whole lines of
// at most maxDatagram bytes, over TCP as a stream of lines each ended by
// "\n", as gostats writes them; a TCP connection that fails is made again
// at the next flush, the lines of the failed one lost (as gostats drops
// what it cannot send). It is used by one goroutine.
type statsdWriter struct {
	network, addr string
	conn          net.Conn // nil until (re)connected, over TCP
	log           *slog.Logger
}

// newStatsdWriter returns the writer of STATSD_PROTOCOL (tcp, tcp4, tcp6,
// udp, udp4, udp6) to addr. A UDP address is resolved now; a TCP
// connection is made at the first write.
func newStatsdWriter(network, addr string, log *slog.Logger) (*statsdWriter, error) {
	w := &statsdWriter{network: network, addr: addr, log: log}
	if w.udp() {
		conn, err := net.Dial(network, addr)
		if err != nil {
			return nil, fmt.Errorf("STATSD_HOST, STATSD_PORT: %w", err)
		}
		w.conn = conn
	}
	return w, nil
}

func (w *statsdWriter) udp() bool { return strings.HasPrefix(w.network, "udp") }

// write sends lines.
func (w *statsdWriter) write(lines []string) {
	if len(lines) == 0 {
		return
	}
	if w.udp() {
		w.datagrams(lines)
		return
	}
	if w.conn != nil && closedByPeer(w.conn) {
		w.conn.Close()
		w.conn = nil
	}
	if w.conn == nil {
		conn, err := net.DialTimeout(w.network, w.addr, statsdDialTimeout)
		if err != nil {
			w.log.Debug("statsd connection failed", "addr", w.addr, "err", err)
			return
		}
		w.conn = conn
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	w.conn.SetWriteDeadline(time.Now().Add(statsdDialTimeout))
	if _, err := w.conn.Write([]byte(b.String())); err != nil {
		w.log.Debug("statsd write failed", "addr", w.addr, "err", err)
		w.conn.Close()
		w.conn = nil
	}
}

// closedByPeer reports whether statsd closed conn: it never sends, so a
// read that does not time out within a millisecond found the end of the
// stream or an error. (A deadline already past would not try the read.)
func closedByPeer(conn net.Conn) bool {
	conn.SetReadDeadline(time.Now().Add(time.Millisecond))
	var b [1]byte
	_, err := conn.Read(b[:])
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// datagrams sends lines in datagrams of at most maxDatagram bytes.
func (w *statsdWriter) datagrams(lines []string) {
	var b strings.Builder
	send := func() {
		if b.Len() == 0 {
			return
		}
		if _, err := w.conn.Write([]byte(b.String())); err != nil {
			w.log.Debug("statsd write failed", "err", err)
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

func (w *statsdWriter) close() {
	if w.conn != nil {
		w.conn.Close()
	}
}
