package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	rlv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/rlpkit/rlpkit/rls"
)

// capsRequest is a request of n descriptors of entries entries each in
// domain d, each entry's value of valueLen bytes.
func capsRequest(n, entries, valueLen int) *rlsv3.RateLimitRequest {
	req := &rlsv3.RateLimitRequest{Domain: "d"}
	for range n {
		desc := &rlv3.RateLimitDescriptor{}
		for range entries {
			desc.Entries = append(desc.Entries, &rlv3.RateLimitDescriptor_Entry{Key: "k", Value: strings.Repeat("v", valueLen)})
		}
		req.Descriptors = append(req.Descriptors, desc)
	}
	return req
}

// postJSON posts req to the server's /json and returns the status and body.
func postJSON(t *testing.T, s *server, req *rlsv3.RateLimitRequest) (int, string) {
	t.Helper()
	js, err := protojson.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post("http://"+s.addrs.http+"/json", "application/json", strings.NewReader(string(js)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestCaps serves with the default caps and with the caps of
// RLPKIT_MAX_DESCRIPTORS_PER_REQUEST, RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR and
// RLPKIT_MAX_KEY_BYTES_PER_REQUEST: over gRPC and POST /json, a request at the
// caps is served and one over is refused (gRPC Unknown, as the reference
// answers an invalid request; 400 on /json) naming the cap, the figure and
// the variable; a message longer than any request within the caps is
// refused by the gRPC receive limit.
func TestCaps(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "ratelimit/config/a.yaml"), "domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 100000}\n")
	env := baseEnv(root)
	small := baseEnv(root)
	small["RLPKIT_MAX_DESCRIPTORS_PER_REQUEST"], small["RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR"], small["RLPKIT_MAX_KEY_BYTES_PER_REQUEST"] = "2", "3", "40"
	servers := map[bool]*server{false: start(t, env), true: start(t, small)}
	tests := []struct {
		name  string
		small bool
		req   *rlsv3.RateLimitRequest
		code  codes.Code
		msg   string
	}{
		{"default caps, at the descriptors and entries", false, capsRequest(1024, 64, 2), codes.OK, ""},
		{"default caps, at the key bytes", false, capsRequest(1, 1, 262144-len("d")-len("k")), codes.OK, ""},
		{"default caps, one descriptor more", false, capsRequest(1025, 1, 1), codes.Unknown,
			"ratelimit: invalid request: descriptors: 1025, over the cap of 1024 per request (raise it with RLPKIT_MAX_DESCRIPTORS_PER_REQUEST)"},
		{"default caps, one entry more", false, capsRequest(1, 65, 1), codes.Unknown,
			"ratelimit: invalid request: descriptors[0].entries: 65, over the cap of 64 per descriptor (raise it with RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR)"},
		{"default caps, one key byte more", false, capsRequest(1, 1, 262144-len("d")-len("k")+1), codes.Unknown,
			"ratelimit: invalid request: domain and entries: 262145 bytes of keys and values, over the cap of 262144 per request (raise it with RLPKIT_MAX_KEY_BYTES_PER_REQUEST)"},
		{"default caps, over the receive limit", false, capsRequest(1, 1, rls.RequestCaps{}.MaxRecvMsgSize()), codes.ResourceExhausted, ""},
		{"variables, at the caps", true, capsRequest(2, 3, 5), codes.OK, ""},
		{"variables, over", true, capsRequest(3, 1, 1), codes.Unknown,
			"ratelimit: invalid request: descriptors: 3, over the cap of 2 per request (raise it with RLPKIT_MAX_DESCRIPTORS_PER_REQUEST)"},
		{"variables, over the receive limit", true, capsRequest(1, 1, 400), codes.ResourceExhausted, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := servers[tc.small]
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			resp, err := s.client.ShouldRateLimit(ctx, tc.req)
			if st := status.Convert(err); st.Code() != tc.code || tc.msg != "" && st.Message() != tc.msg {
				t.Errorf("gRPC: %v %q, want %v %q", st.Code(), st.Message(), tc.code, tc.msg)
			} else if tc.code == codes.OK && len(resp.GetStatuses()) != len(tc.req.Descriptors) {
				t.Errorf("gRPC: %d statuses, want %d", len(resp.GetStatuses()), len(tc.req.Descriptors))
			}
			if tc.code == codes.ResourceExhausted {
				return // the /json bound is checked below
			}
			code, body := postJSON(t, s, tc.req)
			want, wantBody := 400, tc.msg+"\n"
			if tc.code == codes.OK {
				want, wantBody = 200, `"overallCode":"OK"`
			}
			if code != want || !strings.Contains(body, wantBody) {
				t.Errorf("POST /json: %d %.200q, want %d %q", code, body, want, wantBody)
			}
		})
	}
	code, body := postJSON(t, servers[true], capsRequest(1, 1, 2000))
	want := "the request body is over 1968 bytes, the most a request within the caps takes in JSON (raise the caps with RLPKIT_MAX_DESCRIPTORS_PER_REQUEST, RLPKIT_MAX_ENTRIES_PER_DESCRIPTOR, RLPKIT_MAX_KEY_BYTES_PER_REQUEST)\n"
	if code != 400 || body != want {
		t.Errorf("POST /json over the body bound: %d %q, want 400 %q", code, body, want)
	}
}
