package rls

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/google/go-cmp/cmp"
)

// FuzzGRPC sends arbitrary bytes as the request of
// RateLimitService/ShouldRateLimit to a real gRPC server (Register, Codec),
// for both formats (Limitador limits with rlpkit's conventions,
// envoyproxy/ratelimit's configuration with its conventions): wire bytes ->
// rlsmsg's decoder -> evaluator and memory store -> rlsmsg's encoder ->
// wire bytes. Every input is also given, as a go-control-plane message, to
// a twin Service with its own store through ShouldRateLimit, so the two
// stay in step. The answer must be: an error exactly when the bytes are no
// RateLimitRequest (gRPC's Internal for an unmarshalling error) or the
// request is refused (the conventions' invalid-request code, with their
// prefix, the same as the twin's); otherwise a response that decodes, with
// one status per descriptor and an overall code that is OVER_LIMIT exactly
// when a status is, equal to the twin's. A panic fails the target.
func FuzzGRPC(f *testing.F) {
	for _, r := range []*rlsv3.RateLimitRequest{
		request("shop", 0, desc("user", "alice")),
		request("shop", 3, withHits(desc("user", "bob"), 0), desc("path", "/cart", "user", "x")),
		request("shop", 0, withOverride(desc("k", "v"), 2, typev3.RateLimitUnit_HOUR)),
		request("d", 0, desc("k", "a"), desc("h", "b"), desc("none", "x")),
		request("d", 5, withOverride(desc("k", "a"), 1, typev3.RateLimitUnit_SECOND)),
		request("", 0, desc()),
		request("d", 0, desc("", "")),
	} {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0x80})             // a truncated length
	f.Add([]byte{0x12, 0x02, 0x0a, 0x7f}) // a descriptor holding a truncated entry
	f.Add([]byte{0xff, 0xff, 0xff})       // no field at all
	formats := []struct {
		name string
		conv Conventions
		pair func(testing.TB) (served, twin *Service)
	}{
		{"limitador", RLPKit, func(t testing.TB) (*Service, *Service) {
			return newService(t, shopLimits, true), newService(t, shopLimits, true)
		}},
		{"envoyratelimit", EnvoyRateLimit, func(t testing.TB) (*Service, *Service) {
			return newRatelimitService(t, Options{ResponseHeaders: true}, true), newRatelimitService(t, Options{ResponseHeaders: true}, true)
		}},
	}
	type target struct {
		conv   Conventions
		client *grpc.ClientConn
		twin   *Service
	}
	var targets []target
	for _, ft := range formats {
		served, twin := ft.pair(f)
		targets = append(targets, target{conv: ft.conv, client: serveBufconn(f, served), twin: twin})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := new(rlsv3.RateLimitRequest)
		decodes := proto.Unmarshal(data, want) == nil
		for _, tg := range targets {
			got, err := rawCall(tg.client, data)
			if !decodes {
				if grpcstatus.Code(err) != codes.Internal {
					t.Fatalf("%s: %x does not decode, answered %x, %v; want Internal", tg.conv.Prefix, data, got, err)
				}
				continue
			}
			twin, twinErr := tg.twin.ShouldRateLimit(context.Background(), want)
			checkAnswer(t, tg.conv, want, got, err, twin, twinErr)
		}
	})
}

// checkAnswer compares a served answer with its twin's and checks its shape.
func checkAnswer(t *testing.T, conv Conventions, req *rlsv3.RateLimitRequest, got []byte, err error, twin *rlsv3.RateLimitResponse, twinErr error) {
	t.Helper()
	if err != nil || twinErr != nil {
		st, twinSt := grpcstatus.Convert(err), grpcstatus.Convert(twinErr)
		if err == nil || twinErr == nil || st.Code() != twinSt.Code() || st.Message() != twinSt.Message() {
			t.Fatalf("%s %v: served %v, twin %v", conv.Prefix, req, err, twinErr)
		}
		if st.Code() != conv.InvalidRequest || !strings.HasPrefix(st.Message(), conv.Prefix) {
			t.Fatalf("%s %v: error %v, want code %v with the conventions' prefix", conv.Prefix, req, err, conv.InvalidRequest)
		}
		return
	}
	resp := new(rlsv3.RateLimitResponse)
	if err := proto.Unmarshal(got, resp); err != nil {
		t.Fatalf("%s %v: response %x does not decode: %v", conv.Prefix, req, got, err)
	}
	if len(resp.GetStatuses()) != len(req.GetDescriptors()) {
		t.Fatalf("%s %v: %d statuses, want %d", conv.Prefix, req, len(resp.GetStatuses()), len(req.GetDescriptors()))
	}
	over := false
	for _, st := range resp.GetStatuses() {
		over = over || st.GetCode() == rlsv3.RateLimitResponse_OVER_LIMIT
	}
	if wantCode := map[bool]rlsv3.RateLimitResponse_Code{false: rlsv3.RateLimitResponse_OK, true: rlsv3.RateLimitResponse_OVER_LIMIT}[over]; resp.GetOverallCode() != wantCode {
		t.Fatalf("%s %v: overall %v with statuses %v", conv.Prefix, req, resp.GetOverallCode(), resp.GetStatuses())
	}
	if diff := cmp.Diff(twin, resp, protocmp.Transform()); diff != "" {
		t.Fatalf("%s %v: served and twin answers differ (-twin +served):\n%s", conv.Prefix, req, diff)
	}
}

// serveBufconn serves s with Register on an in-process listener until the
// test ends, and returns a client of it.
func serveBufconn(t testing.TB, s *Service) *grpc.ClientConn {
	t.Helper()
	return serveBufconnWith(t, s, func(srv *grpc.Server) { Register(srv, s) })
}

// serveBufconnWith serves what register registers, with s's server
// options, on an in-process listener until the test ends, and returns a
// client of it.
func serveBufconnWith(t testing.TB, s *Service, register func(*grpc.Server)) *grpc.ClientConn {
	t.Helper()
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer(s.ServerOptions()...)
	register(srv)
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///rls",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// rawCall sends data as the request message of ShouldRateLimit and returns
// the response message's bytes.
func rawCall(conn *grpc.ClientConn, data []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out []byte
	err := conn.Invoke(ctx, shouldRateLimitMethod, &data, &out, grpc.ForceCodecV2(rawBytes{}))
	return out, err
}

// rawBytes is a client codec that sends and receives messages as bytes.
type rawBytes struct{}

func (rawBytes) Name() string { return "proto" }

func (rawBytes) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawBytes) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}
