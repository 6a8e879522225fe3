package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
)

// testXDSSettings are plain-text xDS settings for addr with short retries.
func testXDSSettings(addr string) xdsSettings {
	return xdsSettings{serverURL: addr, nodeID: xdsNode, retryInterval: 20 * time.Millisecond,
		backoffInitial: 20 * time.Millisecond, backoffMax: 20 * time.Millisecond, backoffFactor: 1,
		connectTimeout: 20 * time.Second, keepaliveTime: 5 * time.Minute, keepaliveTimeout: 20 * time.Second}
}

// runXDSClient runs an xDS client of x that accepts every response until
// the test ends, and returns how many responses it applied.
func runXDSClient(t *testing.T, x xdsSettings) *atomic.Int32 {
	t.Helper()
	var applied atomic.Int32
	c, err := newXDSClient(x, slog.New(slog.DiscardHandler), func(*discoveryv3.DiscoveryResponse) error { applied.Add(1); return nil })
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { c.run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return &applied
}

// A management server that accepts the connection but never answers its
// handshake is left after RLPKIT_XDS_CLIENT_CONNECT_TIMEOUT, for a new
// attempt.
func TestXDSClientConnectTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	x := testXDSSettings(l.Addr().String())
	x.connectTimeout = 100 * time.Millisecond
	runXDSClient(t, x)
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(halfOpenWait))
	if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the client still holds a connection whose handshake was never answered after %v", halfOpenWait)
	}
}

// A management server gone silent without closing the connection (a
// half-open stream) is found by the keepalive ping and left for a new
// connection, which gets the configuration again.
func TestXDSClientKeepalive(t *testing.T) {
	xs := startXDSServer(t, "127.0.0.1:0", nil)
	xs.set(1, egRouteConfig(1))
	p := startFreezingProxy(t, xs.addr)
	x := testXDSSettings(p.addr)
	// gRPC's clients ping every 10 s at the most often.
	x.keepaliveTime, x.keepaliveTimeout = 10*time.Second, 100*time.Millisecond
	applied := runXDSClient(t, x)
	eventually(t, "the first response", func() bool { return applied.Load() == 1 })
	p.freeze()
	deadline := time.Now().Add(3 * halfOpenWait)
	for applied.Load() < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the client still waits on a silent stream after %v", 3*halfOpenWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// freezingProxy forwards TCP connections to a server until freeze, after
// which the connections open stay open but carry nothing, as with a peer
// gone without a FIN; connections opened later are forwarded again.
type freezingProxy struct {
	addr   string
	frozen chan struct{}
	once   sync.Once
}

func startFreezingProxy(t *testing.T, to string) *freezingProxy {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &freezingProxy{addr: l.Addr().String(), frozen: make(chan struct{})}
	done := make(chan struct{})
	var conns []net.Conn
	var mu sync.Mutex
	t.Cleanup(func() {
		l.Close()
		close(done)
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, s)
			mu.Unlock()
			// A connection opened before the freeze freezes with it.
			gate := p.frozen
			select {
			case <-p.frozen:
				gate = nil
			default:
			}
			go p.pipe(c, s, gate, done)
			go p.pipe(s, c, gate, done)
		}
	}()
	return p
}

// pipe copies src to dst until either fails, or, once gate is closed, holds
// what it reads without forwarding it until done.
func (p *freezingProxy) pipe(dst, src net.Conn, gate, done <-chan struct{}) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if err != nil {
			dst.Close()
			return
		}
		select {
		case <-gate:
			<-done
			return
		default:
		}
		if _, err := dst.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (p *freezingProxy) freeze() { p.once.Do(func() { close(p.frozen) }) }
