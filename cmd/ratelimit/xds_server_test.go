package main

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"sync"
	"testing"

	discoveryv3 "github.com/envoyproxy/go-control-plane/envoy/service/discovery/v3"
	"github.com/envoyproxy/go-control-plane/pkg/cache/types"
	cachev3 "github.com/envoyproxy/go-control-plane/pkg/cache/v3"
	resourcev3 "github.com/envoyproxy/go-control-plane/pkg/resource/v3"
	serverv3 "github.com/envoyproxy/go-control-plane/pkg/server/v3"
	rlconf "github.com/envoyproxy/go-control-plane/ratelimit/config/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// xdsNode is the node id Envoy Gateway's Deployment sets and its
// snapshots are kept under.
const xdsNode = "envoy-ratelimit"

// xdsServer is a management server as Envoy Gateway's global rate-limit
// runner runs it: a go-control-plane SnapshotCache (not ADS-consistent)
// behind the aggregated discovery service, over mTLS.
type xdsServer struct {
	t     *testing.T
	addr  string
	cache cachev3.SnapshotCache
	gs    *grpc.Server
	done  chan struct{}

	mu       sync.Mutex
	requests []*discoveryv3.DiscoveryRequest
	headers  []metadata.MD // of each stream opened
}

// startXDSServer serves on addr ("127.0.0.1:0" for a free port) with a new,
// empty cache, as a restarted Envoy Gateway has; in plain text when tc is
// nil.
func startXDSServer(t *testing.T, addr string, tc *tls.Config) *xdsServer {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	creds := insecure.NewCredentials()
	if tc != nil {
		creds = credentials.NewTLS(tc)
	}
	x := &xdsServer{t: t, addr: l.Addr().String(), cache: cachev3.NewSnapshotCache(false, cachev3.IDHash{}, nil),
		gs: grpc.NewServer(grpc.Creds(creds)), done: make(chan struct{})}
	cb := serverv3.CallbackFuncs{
		StreamOpenFunc: func(ctx context.Context, _ int64, _ string) error {
			md, _ := metadata.FromIncomingContext(ctx)
			x.mu.Lock()
			x.headers = append(x.headers, md)
			x.mu.Unlock()
			return nil
		},
		StreamRequestFunc: func(_ int64, req *discoveryv3.DiscoveryRequest) error {
			x.mu.Lock()
			x.requests = append(x.requests, req)
			x.mu.Unlock()
			return nil
		},
	}
	discoveryv3.RegisterAggregatedDiscoveryServiceServer(x.gs, serverv3.NewServer(context.Background(), x.cache, cb))
	go func() { x.gs.Serve(l); close(x.done) }()
	t.Cleanup(x.stop)
	return x
}

func (x *xdsServer) stop() {
	x.gs.Stop()
	<-x.done
}

// set makes configs the node's snapshot at version.
func (x *xdsServer) set(version int, configs ...*rlconf.RateLimitConfig) {
	x.t.Helper()
	res := make([]types.Resource, len(configs))
	for i, c := range configs {
		res[i] = c
	}
	snap, err := cachev3.NewSnapshot(strconv.Itoa(version), map[resourcev3.Type][]types.Resource{resourcev3.RateLimitConfigType: res})
	if err != nil {
		x.t.Fatal(err)
	}
	if err := x.cache.SetSnapshot(context.Background(), xdsNode, snap); err != nil {
		x.t.Fatal(err)
	}
}

// waitRequest waits until a request received satisfies ok, and returns it.
func (x *xdsServer) waitRequest(what string, ok func(*discoveryv3.DiscoveryRequest) bool) *discoveryv3.DiscoveryRequest {
	x.t.Helper()
	var found *discoveryv3.DiscoveryRequest
	eventually(x.t, what, func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		for _, r := range x.requests {
			if ok(r) {
				found = r
				return true
			}
		}
		return false
	})
	return found
}

// ack waits for the ACK of version.
func (x *xdsServer) ack(version int) *discoveryv3.DiscoveryRequest {
	x.t.Helper()
	v := strconv.Itoa(version)
	return x.waitRequest("the ACK of version "+v, func(r *discoveryv3.DiscoveryRequest) bool {
		return r.GetVersionInfo() == v && r.GetResponseNonce() != "" && r.GetErrorDetail() == nil
	})
}

// streamHeaders returns the headers of the streams opened so far.
func (x *xdsServer) streamHeaders() []metadata.MD {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]metadata.MD(nil), x.headers...)
}

// requestCount returns how many requests were received.
func (x *xdsServer) requestCount() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.requests)
}
