package faultsuite

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"
	"time"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// shouldRateLimit is the method's full name.
const shouldRateLimit = "/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit"

// TestMalformedInput sends malformed protobuf, truncated frames and random
// bytes to the gRPC port (and, for cmd/ratelimit, random and truncated
// bodies to /json), then checks that the server answers a good request
// and that its goroutines come back to their count before.
func TestMalformedInput(t *testing.T) {
	limits := "- {namespace: " + faultDomain + ", max_value: 1000000000, seconds: 3600, variables: [user]}\n"
	config := "domain: " + faultDomain + "\ndescriptors:\n  - key: user\n    rate_limit: {unit: hour, requests_per_unit: 1000000000}\n"
	for _, tc := range []struct {
		name  string
		json  bool
		start func(t *testing.T) *server
	}{
		{"rlpkit serve", false, func(t *testing.T) *server {
			return startRlpkit(t, "--limits", writeTemp(t, "limits.yaml", limits))
		}},
		{"cmd/ratelimit", true, func(t *testing.T) *server {
			return startRatelimit(t, config, "BACKEND_TYPE=memory")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := tc.start(t)
			good(t, srv)
			before := srv.goroutines(t)
			r := rand.New(rand.NewPCG(1, 2))
			for range 30 {
				randomBytes(t, srv.grpcAddr, r, false)
				randomBytes(t, srv.grpcAddr, r, true)
				truncatedFrame(t, srv.grpcAddr, r)
			}
			malformedMessages(t, srv, r)
			if tc.json {
				malformedJSON(t, srv.httpAddr, r)
			}
			good(t, srv)
			// A few goroutines come and go with the server's own work
			// (gRPC's keepalive, the HTTP server's idle connections).
			after := settleGoroutines(t, srv, before+2)
			t.Logf("%s: %d goroutines before the malformed input, %d after", tc.name, before, after)
			if after > before+2 {
				t.Errorf("%s: %d goroutines after the malformed input, %d before: a leak", tc.name, after, before)
			}
		})
	}
}

// good sends a valid request, which must be answered.
func good(t *testing.T, srv *server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := &rlsv3.RateLimitRequest{Domain: faultDomain, Descriptors: []*rlcommon.RateLimitDescriptor{{Entries: []*rlcommon.RateLimitDescriptor_Entry{{Key: "user", Value: users[0]}}}}}
	if resp, err := srv.client.ShouldRateLimit(ctx, req); err != nil || resp.GetOverallCode() != rlsv3.RateLimitResponse_OK {
		t.Fatalf("%s: a good request answered %v, %v", srv.name, resp, err)
	}
}

// randomBytes writes up to 4 KiB of random bytes to addr, after the
// HTTP/2 preface when preface is true, and closes the connection after
// reading what the server answers within 20 ms.
func randomBytes(t *testing.T, addr string, r *rand.Rand, preface bool) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	var b []byte
	if preface {
		b = append(b, http2.ClientPreface...)
	}
	b = append(b, randBytes(r, 1+r.IntN(4096))...)
	_, _ = c.Write(b)
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, _ = io.Copy(io.Discard, c)
}

// truncatedFrame opens a ShouldRateLimit stream whose gRPC message says it
// is longer than the bytes sent, then ends the stream (half the time) or
// drops the connection.
func truncatedFrame(t *testing.T, addr string, r *rand.Rand) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	defer c.Close()
	_, _ = c.Write([]byte(http2.ClientPreface))
	fr := http2.NewFramer(c, c)
	_ = fr.WriteSettings()
	var hb bytes.Buffer
	enc := hpack.NewEncoder(&hb)
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", shouldRateLimit}, {":authority", addr},
		{"content-type", "application/grpc"}, {"te", "trailers"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: hb.Bytes(), EndHeaders: true})
	body := randBytes(r, 1+r.IntN(64))
	msg := make([]byte, 5, 5+len(body))
	binary.BigEndian.PutUint32(msg[1:], uint32(len(body)+1+r.IntN(1<<20)))
	_ = fr.WriteData(1, r.IntN(2) == 0, append(msg, body...))
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, _ = io.Copy(io.Discard, c)
}

// malformedMessages sends well-framed calls whose messages are random
// bytes or truncated requests; each must fail or be answered, never hang.
func malformedMessages(t *testing.T, srv *server, r *rand.Rand) {
	t.Helper()
	valid, err := proto.Marshal(bigRequest(8, 16))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		var msg []byte
		if i%2 == 0 {
			msg = randBytes(r, r.IntN(512))
		} else {
			msg = valid[:r.IntN(len(valid))]
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var out []byte
		err := srv.conn.Invoke(ctx, shouldRateLimit, &msg, &out, grpc.ForceCodecV2(rawBytes{}))
		cancel()
		if status.Code(err) == codes.DeadlineExceeded {
			t.Fatalf("%s: a malformed message hung the call: %v", srv.name, err)
		}
	}
}

// malformedJSON posts random, truncated and oversized bodies to /json;
// each must be answered with a client error or a decision, never hang.
func malformedJSON(t *testing.T, addr string, r *rand.Rand) {
	t.Helper()
	valid := []byte(`{"domain":"` + faultDomain + `","descriptors":[{"entries":[{"key":"user","value":"` + users[1] + `"}]}]}`)
	c := http.Client{Timeout: 5 * time.Second}
	for i := range 100 {
		var body []byte
		switch i % 3 {
		case 0:
			body = randBytes(r, r.IntN(2048))
		case 1:
			body = valid[:r.IntN(len(valid))]
		default:
			body = bytes.Repeat([]byte(`{"domain":"x",`), 1+r.IntN(200_000))
		}
		resp, err := c.Post("http://"+addr+"/json", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatalf("POST /json: %v", err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 500 && i%3 != 1 {
			t.Errorf("POST /json of %d bytes answered %s, want a client error", len(body), resp.Status)
		}
	}
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
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
