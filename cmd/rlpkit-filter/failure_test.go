package main

import (
	"context"
	"net"
	"strings"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
)

// oneDescriptor is a PluginConfig whose every request for a.com yields one descriptor, sent
// to cluster "rls" with timeout.
func oneDescriptor(deny bool, timeout string) []byte {
	d := "false"
	if deny {
		d = "true"
	}
	return []byte(`{"failureModeDeny":` + d + `,"timeout":"` + timeout + `","rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"rls","hostnames":["a.com"],
		"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}}]}]}]}]}`)
}

// closedPort returns a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// TestFailureModes checks every way a call can fail, with failureModeDeny false (the
// request continues) and true (a local 500), and that the outcome is issued exactly once on
// the request's own context.
func TestFailureModes(t *testing.T) {
	answer := func(resp *rlsv3.RateLimitResponse, err error) func(*testing.T) *grpc.ClientConn {
		return func(t *testing.T) *grpc.ClientConn {
			return serve(t, &fakeRLS{fn: func(context.Context, *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) { return resp, err }})
		}
	}
	tests := []struct {
		name    string
		cluster func(*testing.T) *grpc.ClientConn // nil: no such cluster
		corrupt bool                              // replace the reply by bytes that do not decode
		paused  bool                              // proxy_on_request_headers pauses
		log     string
	}{
		{name: "service unreachable", paused: true, log: "rate-limit call failed with gRPC status 14",
			cluster: func(t *testing.T) *grpc.ClientConn { return dial(t, closedPort(t)) }},
		{name: "gRPC error status", paused: true, log: "rate-limit call failed with gRPC status 8",
			cluster: answer(nil, grpcstatus.Error(codes.ResourceExhausted, "busy"))},
		{name: "host timeout", paused: true, log: "rate-limit call failed with gRPC status 4",
			cluster: func(t *testing.T) *grpc.ClientConn {
				return serve(t, &fakeRLS{fn: func(ctx context.Context, _ *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
					<-ctx.Done()
					return nil, ctx.Err()
				}})
			}},
		{name: "UNKNOWN overall code", paused: true, log: "rate-limit reply with overall code 0",
			cluster: answer(&rlsv3.RateLimitResponse{}, nil)},
		{name: "undecodable reply", paused: true, corrupt: true, log: "undecodable rate-limit reply",
			cluster: answer(&rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK}, nil)},
		{name: "proxy_grpc_call fails", log: `proxy_grpc_call to cluster "rls": BadArgument`},
	}
	for _, tc := range tests {
		for _, deny := range []bool{false, true} {
			name := tc.name + "/allow"
			want := "continue"
			if deny {
				name, want = tc.name+"/deny", "500"
			}
			t.Run(name, func(t *testing.T) {
				var opts []hostOption
				if tc.cluster != nil {
					opts = append(opts, withCluster("rls", tc.cluster(t)))
				}
				timeout := "10s"
				if tc.name == "host timeout" {
					timeout = "50ms"
				}
				h, ok := newHost(t, module, oneDescriptor(deny, timeout), opts...)
				if !ok {
					t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
				}
				s := h.request(get("GET", "a.com", "/", ""))
				// A local reply from proxy_on_request_headers itself comes with a pause too.
				if got, want := s.action == statusPause, tc.paused || deny; got != want {
					t.Fatalf("proxy_on_request_headers paused = %v, want %v", got, want)
				}
				if tc.paused {
					c := h.next()
					if tc.corrupt {
						c.reply = []byte{0x08, 0x80} // a truncated varint
					}
					h.deliver(c)
				}
				if got := outcome(t, s); got != want {
					t.Errorf("outcome %s, want %s\n%s", got, want, h.dump())
				}
				if deny && s.reply != nil && (len(s.reply.headers) != 0 || s.reply.body != "") {
					t.Errorf("500 with headers %v and body %q, want neither", s.reply.headers, s.reply.body)
				}
				if logs := strings.Join(h.logs, "\n"); !strings.Contains(logs, tc.log) {
					t.Errorf("logs lack %q:\n%s", tc.log, logs)
				}
				if len(h.ignored) != 0 {
					t.Errorf("actions issued on the root context: %v", h.ignored)
				}
			})
		}
	}
}

// TestDeletedBeforeReply checks that a request that goes away while its call is in flight
// cancels the call, and that a reply arriving anyway (already on its way) is ignored: no
// trap, nothing issued on any context.
func TestDeletedBeforeReply(t *testing.T) {
	for _, deny := range []bool{false, true} {
		h, ok := newHost(t, module, oneDescriptor(deny, "10s"), withCluster("rls", startRLS(t, nil)))
		if !ok {
			t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
		}
		s := h.request(get("GET", "a.com", "/", ""))
		if s.action != statusPause {
			t.Fatalf("proxy_on_request_headers = %d, want Pause", s.action)
		}
		h.end(s)
		if h.cancelled != 1 {
			t.Errorf("proxy_grpc_cancel calls = %d, want 1", h.cancelled)
		}
		c := h.next()
		h.deliver(c) // cancelled: Envoy delivers nothing
		c.code = codes.OK
		c.reply = []byte{0x08, 0x02} // OVER_LIMIT
		h.deliverAnyway(c)
		c.code = codes.Unavailable
		h.deliverAnyway(c)
		if s.continued != 0 || s.replies != 0 || len(h.ignored) != 0 {
			t.Errorf("after the request was deleted: %d continues, %d replies, ignored %v; want none", s.continued, s.replies, h.ignored)
		}
		// The VM still serves requests.
		s = h.request(get("GET", "a.com", "/", ""))
		h.deliver(h.next())
		if got := outcome(t, s); got != "continue" {
			t.Errorf("next request = %s, want continue", got)
		}
	}
}

// TestLocalReplyRefused checks that a request whose local reply Envoy refuses does not stay
// paused: with failureModeDeny it is closed (proxy_close_stream), otherwise it continues,
// for a 429 (OVER_LIMIT), a 500 after a failed call and a 500 when the call cannot be made.
func TestLocalReplyRefused(t *testing.T) {
	overLimit := func(t *testing.T) *grpc.ClientConn {
		return serve(t, &fakeRLS{fn: func(context.Context, *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
			return &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OVER_LIMIT}, nil
		}})
	}
	tests := []struct {
		name    string
		cluster func(*testing.T) *grpc.ClientConn // nil: no such cluster, the call is not made
		paused  bool
		allow   string // the outcome without failureModeDeny
	}{
		{name: "429", cluster: overLimit, paused: true, allow: "continue"},
		{name: "500 after a failed call", paused: true, allow: "continue",
			cluster: func(t *testing.T) *grpc.ClientConn { return dial(t, closedPort(t)) }},
		{name: "500 without a call", allow: "continue"},
	}
	for _, tc := range tests {
		for _, deny := range []bool{false, true} {
			name := tc.name + "/allow"
			if deny {
				name = tc.name + "/deny"
			}
			t.Run(name, func(t *testing.T) {
				opts := []hostOption{withRefusedLocalReplies()}
				if tc.cluster != nil {
					opts = append(opts, withCluster("rls", tc.cluster(t)))
				}
				h, ok := newHost(t, module, oneDescriptor(deny, "10s"), opts...)
				if !ok {
					t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
				}
				s := h.request(get("GET", "a.com", "/", ""))
				if tc.paused {
					h.deliver(h.next())
				}
				got := outcome(t, s)
				if s.closed > 0 {
					got = "closed"
				}
				want := tc.allow
				if deny {
					want = "closed"
				}
				if got != want || s.closed > 1 || (s.closed == 1 && s.continued > 0) {
					t.Errorf("outcome %s (closed %d, continued %d), want %s\n%s", got, s.closed, s.continued, want, h.dump())
				}
				if len(h.ignored) != 0 {
					t.Errorf("actions issued on the root context: %v", h.ignored)
				}
			})
		}
	}
}
