package rls

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/rlpkit/rlpkit/internal/redistest"
	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/limit/counter"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/limit/redis"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// tokenLimits are a TokenRateLimitPolicy's Limitador limits as
// kuadrant-operator compiles them: per user, 1,000 tokens a minute and, on
// the same descriptor, a stricter 600 for the "free" tier.
var tokenLimits = []limitador.Limit{{
	Namespace:  "ns/route",
	Name:       "tokens",
	MaxValue:   1000,
	Seconds:    60,
	Conditions: []string{`descriptors[0]["tokenlimit.tokens__13adad8e"] == "1"`},
	Variables:  []string{`descriptors[0]["user"]`},
}, {
	Namespace:  "ns/route",
	Name:       "free",
	MaxValue:   600,
	Seconds:    60,
	Conditions: []string{`descriptors[0]["tokenlimit.tokens__13adad8e"] == "1"`, `descriptors[0]["tier"] == "free"`},
	Variables:  []string{`descriptors[0]["user"]`},
}}

// kuadrantClient calls kuadrant.service.ratelimit.v1.RateLimitService over a
// real gRPC connection, with go-control-plane's messages, as wasm-shim does.
type kuadrantClient struct{ conn grpc.ClientConnInterface }

func (k kuadrantClient) call(t testing.TB, method string, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	t.Helper()
	out := new(rlsv3.RateLimitResponse)
	err := k.conn.Invoke(context.Background(), "/"+KuadrantServiceName+"/"+method, req, out)
	return out, err
}

// code calls method and returns the overall code, failing t on an error.
func (k kuadrantClient) code(t testing.TB, method string, req *rlsv3.RateLimitRequest) rlsv3.RateLimitResponse_Code {
	t.Helper()
	resp, err := k.call(t, method, req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if len(resp.Statuses) != 0 || len(resp.ResponseHeadersToAdd) != 0 {
		t.Fatalf("%s answered statuses or headers, Limitador answers neither: %v", method, resp)
	}
	return resp.OverallCode
}

// serveKuadrant serves s with RegisterKuadrant on loopback.
func serveKuadrant(t testing.TB, s *Service) kuadrantClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(s.ServerOptions()...)
	Register(srv, s)
	RegisterKuadrant(srv, s)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return kuadrantClient{conn: conn}
}

// stores returns the stores the check and report tests run on: memory and
// a Redis server of the test's own.
func stores(t *testing.T) map[string]func(t *testing.T) counter.Store {
	return map[string]func(t *testing.T) counter.Store{
		"memory": func(*testing.T) counter.Store { return counter.NewMemoryStore(counter.MemoryOptions{}) },
		"redis": func(t *testing.T) counter.Store {
			srv := redistest.Start(t)
			client, err := redis.NewClient(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { client.Close() })
			st, err := redis.New(client, redis.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
}

func tokenRequest(user, tier string, hits uint32, extra ...string) *rlsv3.RateLimitRequest {
	kv := append([]string{"tokenlimit.tokens__13adad8e", "1", "user", user, "tier", tier}, extra...)
	return request("ns/route", hits, desc(kv...))
}

// TestCheckReportLimitador checks Limitador 2.4's semantics over gRPC: a
// check is over when value + 1 exceeds the max and charges nothing,
// whatever hits_addend says; a report adds hits_addend (0 as 1) without
// checking and answers OK even past the max; an empty domain is UNKNOWN.
func TestCheckReportLimitador(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			s, err := New(tokenLimits, Options{Store: newStore(t), Clock: fixedClock(t0)})
			if err != nil {
				t.Fatal(err)
			}
			k := serveKuadrant(t, s)
			steps := []struct {
				method string
				req    *rlsv3.RateLimitRequest
				want   rlsv3.RateLimitResponse_Code
			}{
				{"CheckRateLimit", tokenRequest("alice", "paid", 5000), ok}, // hits_addend plays no part
				{"CheckRateLimit", tokenRequest("alice", "paid", 0), ok},
				{"Report", tokenRequest("alice", "paid", 998), ok},
				{"CheckRateLimit", tokenRequest("alice", "paid", 0), ok}, // 998 + 1 <= 1000
				{"Report", tokenRequest("alice", "paid", 0), ok},         // 0 counts as 1: 999
				{"Report", tokenRequest("alice", "paid", 1), ok},         // 1000
				{"CheckRateLimit", tokenRequest("alice", "paid", 0), over},
				{"Report", tokenRequest("alice", "paid", 500), ok}, // past the max, still OK
				{"CheckRateLimit", tokenRequest("bob", "paid", 0), ok},
				// The stricter limit of two decides: 600 for the free tier.
				{"Report", tokenRequest("carol", "free", 599), ok},
				{"CheckRateLimit", tokenRequest("carol", "free", 0), ok},
				{"Report", tokenRequest("carol", "free", 1), ok},
				{"CheckRateLimit", tokenRequest("carol", "free", 0), over},
				{"CheckRateLimit", tokenRequest("carol", "paid", 0), ok}, // 600 of 1000
				{"CheckRateLimit", request("", 0, desc("user", "x")), rlsv3.RateLimitResponse_UNKNOWN},
				{"Report", request("", 0, desc("user", "x")), rlsv3.RateLimitResponse_UNKNOWN},
			}
			for i, st := range steps {
				if got := k.code(t, st.method, st.req); got != st.want {
					t.Fatalf("step %d: %s(%v) = %v, want %v", i, st.method, st.req, got, st.want)
				}
			}
		})
	}
}

// adjustingFailingStore fails every Update and Adjust with err.
type adjustingFailingStore struct{ failingStore }

func (f adjustingFailingStore) Adjust(context.Context, time.Time, []counter.Adjustment) error {
	return f.err
}

// TestCheckReportErrors checks the gRPC errors: Unavailable when the store
// fails, Unimplemented when the configuration has no check and report.
func TestCheckReportErrors(t *testing.T) {
	s, err := New(tokenLimits, Options{Store: adjustingFailingStore{failingStore{errStoreDown}}, Clock: fixedClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	k := serveKuadrant(t, s)
	for _, m := range []string{"CheckRateLimit", "Report"} {
		_, err := k.call(t, m, tokenRequest("alice", "paid", 1))
		if got := grpcstatus.Code(err); got != codes.Unavailable {
			t.Errorf("%s with the store down: %v, want Unavailable", m, err)
		}
	}
	s.SetEvaluator(noCheckReport{}, 0)
	for _, m := range []string{"CheckRateLimit", "Report"} {
		_, err := k.call(t, m, tokenRequest("alice", "paid", 1))
		if got := grpcstatus.Code(err); got != codes.Unimplemented {
			t.Errorf("%s without check and report: %v, want Unimplemented", m, err)
		}
	}
}

// noCheckReport is an evaluator without Probe and Charge.
type noCheckReport struct{}

func (noCheckReport) Evaluate(context.Context, time.Time, *rlsmsg.Request, *limit.Result) error {
	return errors.New("not called")
}
func (noCheckReport) Configured(string) bool { return true }

// TestKuadrantDescriptor checks the registered descriptor: Limitador's
// service and methods over Envoy's messages, as gRPC reflection shows them.
func TestKuadrantDescriptor(t *testing.T) {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(KuadrantServiceName)
	if err != nil {
		t.Fatal(err)
	}
	sd := d.(protoreflect.ServiceDescriptor)
	var got []string
	for i := range sd.Methods().Len() {
		m := sd.Methods().Get(i)
		got = append(got, fmt.Sprintf("%s(%s) %s", m.Name(), m.Input().FullName(), m.Output().FullName()))
	}
	want := []string{
		"CheckRateLimit(envoy.service.ratelimit.v3.RateLimitRequest) envoy.service.ratelimit.v3.RateLimitResponse",
		"Report(envoy.service.ratelimit.v3.RateLimitRequest) envoy.service.ratelimit.v3.RateLimitResponse",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("methods %q, want %q", got, want)
	}
	if sd.ParentFile().Path() != kuadrantDesc.Metadata {
		t.Errorf("file %q, want the service's metadata %q", sd.ParentFile().Path(), kuadrantDesc.Metadata)
	}
}
