package main

import (
	"io"
	"strings"
	"testing"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/rls"
)

// TestParseServeCaps: the caps come from their flags or RLPKIT_ variables,
// 1,024 descriptors, 64 entries and 256 KiB by default; a value that is not
// a whole number from 1 to 2^31-1 stops serve, naming the flag or variable.
func TestParseServeCaps(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want rls.RequestCaps
		err  string
	}{
		{"defaults", nil, nil, rls.RequestCaps{MaxDescriptors: 1024, MaxEntries: 64, MaxKeyBytes: 262144}, ""},
		{"flags", nil, []string{"--max-descriptors", "2", "--max-entries", "3", "--max-key-bytes", "1048576"}, rls.RequestCaps{MaxDescriptors: 2, MaxEntries: 3, MaxKeyBytes: 1 << 20}, ""},
		{"variables", map[string]string{"RLPKIT_MAX_DESCRIPTORS": "5", "RLPKIT_MAX_ENTRIES": "6", "RLPKIT_MAX_KEY_BYTES": "7"}, nil,
			rls.RequestCaps{MaxDescriptors: 5, MaxEntries: 6, MaxKeyBytes: 7}, ""},
		{"negative flag", nil, []string{"--max-descriptors", "-1"}, rls.RequestCaps{}, "--max-descriptors -1: want a whole number from 1 to 2147483647"},
		{"zero flag", nil, []string{"--max-entries", "0"}, rls.RequestCaps{}, "--max-entries 0: want a whole number from 1 to 2147483647"},
		{"too large", nil, []string{"--max-key-bytes", "4294967296"}, rls.RequestCaps{}, "--max-key-bytes 4294967296: want a whole number from 1 to 2147483647"},
		{"negative variable", map[string]string{"RLPKIT_MAX_KEY_BYTES": "-5"}, nil, rls.RequestCaps{}, "RLPKIT_MAX_KEY_BYTES -5: want a whole number from 1 to 2147483647"},
		{"not a number", map[string]string{"RLPKIT_MAX_ENTRIES": "many"}, nil, rls.RequestCaps{}, `RLPKIT_MAX_ENTRIES="many": invalid value for --max-entries: parse error`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok }
			o, err := parseServe(append([]string{"--limits", "l.yaml"}, tc.args...), lookup, io.Discard)
			switch {
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Errorf("parseServe(%v, %v) error = %v, want %q", tc.args, tc.env, err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("parseServe(%v, %v) error = %v", tc.args, tc.env, err)
			case tc.err == "" && o.caps != tc.want:
				t.Errorf("parseServe(%v, %v) caps = %+v, want %+v", tc.args, tc.env, o.caps, tc.want)
			}
		})
	}
}

// capsRequest is a request of n descriptors of entries entries each in
// domain shop, each entry's value of valueLen bytes.
func capsRequest(n, entries, valueLen int) *rlsv3.RateLimitRequest {
	req := &rlsv3.RateLimitRequest{Domain: "shop"}
	for range n {
		d := &rlcommon.RateLimitDescriptor{}
		for range entries {
			d.Entries = append(d.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: "k", Value: strings.Repeat("v", valueLen)})
		}
		req.Descriptors = append(req.Descriptors, d)
	}
	return req
}

// TestServeCaps serves with the default caps and with caps of its flags:
// over gRPC, a request at the caps is served, one over is InvalidArgument
// naming the cap, the figure and the flag, and a message longer than any
// request within the caps is refused by the receive limit.
func TestServeCaps(t *testing.T) {
	file := writeFile(t, t.TempDir(), "limits.yaml", "- {namespace: shop, max_value: 100, seconds: 60, variables: [k]}\n")
	flags := []string{"--max-descriptors", "2", "--max-entries", "3", "--max-key-bytes", "40"}
	servers := map[bool]*testServer{
		false: startServe(t, "--addr", "127.0.0.1:0", "--limits", file),
		true:  startServe(t, append([]string{"--addr", "127.0.0.1:0", "--limits", file}, flags...)...),
	}
	tests := []struct {
		name  string
		flags bool
		req   *rlsv3.RateLimitRequest
		code  codes.Code
		msg   string
	}{
		{"default caps, at the descriptors", false, capsRequest(1024, 1, 1), codes.OK, ""},
		{"default caps, at the entries", false, capsRequest(1, 64, 1), codes.OK, ""},
		{"default caps, at the key bytes", false, capsRequest(1, 1, 262144-len("shop")-len("k")), codes.OK, ""},
		{"default caps, one descriptor more", false, capsRequest(1025, 1, 1), codes.InvalidArgument,
			"rls: invalid request: descriptors: 1025, over the cap of 1024 per request (raise it with --max-descriptors)"},
		{"default caps, one entry more", false, capsRequest(1, 65, 1), codes.InvalidArgument,
			"rls: invalid request: descriptors[0].entries: 65, over the cap of 64 per descriptor (raise it with --max-entries)"},
		{"default caps, one key byte more", false, capsRequest(1, 1, 262144-len("shop")-len("k")+1), codes.InvalidArgument,
			"rls: invalid request: domain and entries: 262145 bytes of keys and values, over the cap of 262144 per request (raise it with --max-key-bytes)"},
		{"default caps, over the receive limit", false, capsRequest(1, 1, rls.RequestCaps{}.MaxRecvMsgSize()), codes.ResourceExhausted, ""},
		{"flags, at the caps", true, capsRequest(2, 3, 5), codes.OK, ""},
		{"flags, over", true, capsRequest(2, 3, 6), codes.InvalidArgument,
			"rls: invalid request: domain and entries: 46 bytes of keys and values, over the cap of 40 per request (raise it with --max-key-bytes)"},
		{"flags, over the receive limit", true, capsRequest(1, 1, 400), codes.ResourceExhausted, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := servers[tc.flags].call(t, tc.req)
			st := status.Convert(err)
			if st.Code() != tc.code || tc.msg != "" && st.Message() != tc.msg {
				t.Fatalf("a request of %d bytes: %v %q, want %v %q", proto.Size(tc.req), st.Code(), st.Message(), tc.code, tc.msg)
			}
			if tc.code == codes.OK && len(resp.GetStatuses()) != len(tc.req.Descriptors) {
				t.Errorf("%d statuses, want %d", len(resp.GetStatuses()), len(tc.req.Descriptors))
			}
		})
	}
}
