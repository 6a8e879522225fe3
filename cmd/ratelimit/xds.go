package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/types/known/structpb"
)

// xdsClient is the state-of-the-world xDS client of CONFIG_TYPE=GRPC_XDS_SOTW:
// one wildcard ADS stream for RateLimitConfig resources. Every response
// replaces the whole configuration when apply accepts it (ACK with its
// version) and is refused whole otherwise (NACK with the last accepted
// version and apply's message), the configuration in force kept. When the
// stream ends it waits the XDS_CLIENT_BACKOFF_* delay and opens a new one,
// whose first request carries the last accepted version.
type xdsClient struct {
	x     xdsSettings
	log   *slog.Logger
	apply func(*discoveryv3.DiscoveryResponse) error
	creds credentials.TransportCredentials

	first     chan struct{} // closed at the first response, accepted or not
	firstOnce sync.Once

	mu      sync.Mutex
	acked   string // the version of the last accepted response
	applied bool   // a response has been accepted
	// onRequest, when set, sees every request sent; tests use it.
	onRequest func(*discoveryv3.DiscoveryRequest)
}

// newXDSClient returns the client; unreadable TLS files are an error
// naming their variables.
func newXDSClient(x xdsSettings, log *slog.Logger, apply func(*discoveryv3.DiscoveryResponse) error) (*xdsClient, error) {
	c := &xdsClient{x: x, log: log, apply: apply, first: make(chan struct{})}
	var err error
	c.creds, err = c.credentials()
	return c, err
}

// run keeps a stream open until ctx is done.
func (c *xdsClient) run(ctx context.Context) {
	for attempt := 0; ; attempt++ {
		got, err := c.session(ctx)
		if got {
			attempt = 0
		}
		if ctx.Err() != nil {
			return
		}
		c.log.Error("xDS stream to the management server ended: "+c.meanwhile(), "server", c.x.serverURL, "err", err)
		t := time.NewTimer(c.delay(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// delay is the wait before reconnect attempt n (from 0): the initial
// interval times the factor to the n, within the initial and the maximum
// interval, drawn between the initial interval and that with jitter. With
// the reference's default factor of 0.5 it is always the initial interval.
func (c *xdsClient) delay(n int) time.Duration {
	lo, hi := float64(c.x.backoffInitial), float64(max(c.x.backoffMax, c.x.backoffInitial))
	d := min(lo*math.Pow(c.x.backoffFactor, float64(n)), hi)
	if c.x.backoffJitter && d > lo {
		d = lo + rand.Float64()*(d-lo)
	}
	return time.Duration(max(d, lo))
}

// session dials, opens one stream and serves it until it fails. got
// reports whether a response arrived. A connection attempt is bounded by
// RLPKIT_XDS_CLIENT_CONNECT_TIMEOUT (or the retry interval, when longer:
// gRPC's rule), and a stream silent for RLPKIT_XDS_CLIENT_KEEPALIVE_TIME
// is pinged and ended when the ping is not answered within
// RLPKIT_XDS_CLIENT_KEEPALIVE_TIMEOUT, so that a management server gone
// without closing the connection is left for a new one.
func (c *xdsClient) session(ctx context.Context) (got bool, err error) {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(c.creds),
		grpc.WithConnectParams(grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: c.x.retryInterval, Multiplier: 1, MaxDelay: c.x.retryInterval}, MinConnectTimeout: c.x.connectTimeout}),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: c.x.keepaliveTime, Timeout: c.x.keepaliveTimeout})}
	if c.x.maxRecvMsgBytes > 0 {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(c.x.maxRecvMsgBytes)))
	}
	conn, err := grpc.NewClient(c.x.serverURL, opts...)
	if err != nil {
		return false, fmt.Errorf("CONFIG_GRPC_XDS_SERVER_URL=%q: %w", c.x.serverURL, err)
	}
	defer conn.Close()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if len(c.x.headers) > 0 {
		sctx = metadata.AppendToOutgoingContext(sctx, c.x.headers...)
	}
	stream, err := discoveryv3.NewAggregatedDiscoveryServiceClient(conn).StreamAggregatedResources(sctx)
	if err != nil {
		return false, err
	}
	if err := c.send(stream, c.version(), "", nil); err != nil {
		return false, err
	}
	for {
		resp, err := stream.Recv()
		if err != nil {
			return got, err
		}
		got = true
		if err := c.handle(stream, resp); err != nil {
			return got, err
		}
	}
}

// handle applies one response and ACKs or NACKs it.
func (c *xdsClient) handle(stream discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesClient, resp *discoveryv3.DiscoveryResponse) error {
	defer c.firstOnce.Do(func() { close(c.first) })
	var aerr error
	if resp.GetTypeUrl() != rateLimitConfigType {
		aerr = fmt.Errorf("response of type %q, want %s", resp.GetTypeUrl(), rateLimitConfigType)
	} else {
		aerr = c.apply(resp)
	}
	if aerr != nil {
		c.log.Error("xDS configuration refused (NACK): "+c.meanwhile(), "version", resp.GetVersionInfo(), "err", aerr)
		return c.send(stream, c.version(), resp.GetNonce(), &status.Status{Code: int32(codes.InvalidArgument), Message: aerr.Error()})
	}
	c.mu.Lock()
	c.acked, c.applied = resp.GetVersionInfo(), true
	c.mu.Unlock()
	c.log.Info("xDS configuration applied (ACK)", "version", resp.GetVersionInfo(), "resources", len(resp.GetResources()))
	return c.send(stream, resp.GetVersionInfo(), resp.GetNonce(), nil)
}

// meanwhile says what is served until the next accepted response: the
// configuration in force, or, before any, none.
func (c *xdsClient) meanwhile() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.applied {
		return "the configuration in force is kept"
	}
	return "no rate limit configuration is loaded: every call fails until a valid one is received"
}

func (c *xdsClient) version() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.acked
}

func (c *xdsClient) send(stream discoveryv3.AggregatedDiscoveryService_StreamAggregatedResourcesClient, version, nonce string, detail *status.Status) error {
	req := &discoveryv3.DiscoveryRequest{Node: c.node(), TypeUrl: rateLimitConfigType, VersionInfo: version, ResponseNonce: nonce, ErrorDetail: detail}
	if c.onRequest != nil {
		c.onRequest(req)
	}
	return stream.Send(req)
}

// node is the node presented: CONFIG_GRPC_XDS_NODE_ID and _METADATA.
func (c *xdsClient) node() *corev3.Node {
	fields := make(map[string]*structpb.Value, len(c.x.nodeMetadata))
	for k, v := range c.x.nodeMetadata {
		fields[k] = structpb.NewStringValue(v)
	}
	return &corev3.Node{Id: c.x.nodeID, Metadata: &structpb.Struct{Fields: fields}}
}

// credentials are the connection's: plain text, or with
// CONFIG_GRPC_XDS_SERVER_USE_TLS TLS presenting the client certificate when
// set and verifying the server against CONFIG_GRPC_XDS_SERVER_TLS_CACERT
// (the system's roots when unset) for CONFIG_GRPC_XDS_SERVER_TLS_SAN, or
// the dialled host when that is unset.
func (c *xdsClient) credentials() (credentials.TransportCredentials, error) {
	x := c.x
	if !x.useTLS {
		return insecure.NewCredentials(), nil
	}
	conf := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: x.tlsSAN}
	if x.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(x.tlsCert, x.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("CONFIG_GRPC_XDS_CLIENT_TLS_CERT, CONFIG_GRPC_XDS_CLIENT_TLS_KEY: %w", err)
		}
		conf.Certificates = []tls.Certificate{cert}
	}
	if x.tlsCA != "" {
		pool, err := certPool("CONFIG_GRPC_XDS_SERVER_TLS_CACERT", x.tlsCA)
		if err != nil {
			return nil, err
		}
		conf.RootCAs = pool
	}
	return credentials.NewTLS(conf), nil
}

// errXDSStopped is returned by waitFirst when ctx ends before the first
// response.
var errXDSStopped = errors.New("stopped before the first xDS response")

// waitFirst waits for the first response, accepted or refused.
func (c *xdsClient) waitFirst(ctx context.Context) error {
	select {
	case <-c.first:
		return nil
	case <-ctx.Done():
		return errXDSStopped
	}
}
