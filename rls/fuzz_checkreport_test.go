package rls

import (
	"context"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/limit/counter"
)

// FuzzCheckReport sends arbitrary bytes as the request of CheckRateLimit
// and Report to a real gRPC server in each mode. The answer must be an
// error exactly when the bytes are no RateLimitRequest (Internal) or the
// request is refused (InvalidArgument), and otherwise a response with the
// overall code alone: UNKNOWN exactly when the domain is empty, never
// OVER_LIMIT for a Report. A panic fails the target.
func FuzzCheckReport(f *testing.F) {
	for _, r := range []*rlsv3.RateLimitRequest{
		tokenRequest("alice", "paid", 0),
		tokenRequest("alice", "free", 700),
		tokenRequest("bob", "paid", 5, ReservedEntry, "900"),
		tokenRequest("bob", "paid", 5, ReservedEntry, "x"),
		request("", 0, desc("user", "x")),
		request("ns/route", 0, withHits(desc("tokenlimit.tokens__13adad8e", "1", "user", "c"), 3)),
	} {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x80})
	var conns []*grpc.ClientConn
	for _, mode := range []Mode{ModeLimitador, ModeReserve} {
		s, err := New(tokenLimits, Options{Store: counter.NewMemoryStore(counter.MemoryOptions{}), Clock: fixedClock(t0), CheckReport: CheckReport{Mode: mode, DefaultEstimate: 50}})
		if err != nil {
			f.Fatal(err)
		}
		conns = append(conns, serveKuadrantBufconn(f, s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var req rlsv3.RateLimitRequest
		decodes := proto.Unmarshal(data, &req) == nil
		for _, conn := range conns {
			for _, m := range []string{"CheckRateLimit", "Report"} {
				out, err := rawInvoke(conn, "/"+KuadrantServiceName+"/"+m, data)
				if err != nil {
					switch code := grpcstatus.Code(err); {
					case !decodes && code == codes.Internal, decodes && code == codes.InvalidArgument:
					default:
						t.Fatalf("%s(%x): %v (the request decodes: %v)", m, data, err, decodes)
					}
					continue
				}
				if !decodes {
					t.Fatalf("%s(%x) answered, but the bytes are no RateLimitRequest", m, data)
				}
				var resp rlsv3.RateLimitResponse
				if err := proto.Unmarshal(out, &resp); err != nil {
					t.Fatalf("%s: the response does not decode: %v", m, err)
				}
				if len(resp.Statuses) > 0 || len(resp.ResponseHeadersToAdd) > 0 {
					t.Fatalf("%s answered statuses or headers: %v", m, &resp)
				}
				if (resp.OverallCode == rlsv3.RateLimitResponse_UNKNOWN) != (req.Domain == "") {
					t.Fatalf("%s(domain %q) = %v", m, req.Domain, resp.OverallCode)
				}
				if m == "Report" && resp.OverallCode == rlsv3.RateLimitResponse_OVER_LIMIT {
					t.Fatalf("Report answered OVER_LIMIT")
				}
			}
		}
	})
}

// serveKuadrantBufconn serves s with Register and RegisterKuadrant on an
// in-process listener.
func serveKuadrantBufconn(t testing.TB, s *Service) *grpc.ClientConn {
	t.Helper()
	return serveBufconnWith(t, s, func(srv *grpc.Server) { Register(srv, s); RegisterKuadrant(srv, s) })
}

// rawInvoke sends data as the request message of method and returns the
// response message's bytes.
func rawInvoke(conn *grpc.ClientConn, method string, data []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []byte
	err := conn.Invoke(ctx, method, &data, &out, grpc.ForceCodecV2(rawBytes{}))
	return out, err
}
