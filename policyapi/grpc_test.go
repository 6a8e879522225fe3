package policyapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSetGRPC(t *testing.T) {
	r := &Request{Method: "GET", Host: "grpcbin.local", Path: "/", Headers: map[string][]string{"content-type": {"text/plain"}, "x-user": {"alice"}}}
	if err := r.SetGRPC("/grpcbin.GRPCBin/DummyUnary"); err != nil {
		t.Fatal(err)
	}
	want := &Request{Method: "POST", Host: "grpcbin.local", Path: "/grpcbin.GRPCBin/DummyUnary", Protocol: "HTTP/2",
		Headers: map[string][]string{"content-type": {"application/grpc"}, "te": {"trailers"}, "x-user": {"alice"}}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("SetGRPC (-want +got):\n%s", diff)
	}
	w := r.WasmShim()
	if w.Protocol != "HTTP/2" || w.Method != "POST" || w.Path != "/grpcbin.GRPCBin/DummyUnary" {
		t.Errorf("WasmShim() = %+v, want an HTTP/2 POST to the method's path", w)
	}
	for _, bad := range []string{"", "grpcbin.GRPCBin", "grpcbin.GRPCBin/", "/Method", "a b/C", "svc/Me-thod"} {
		if err := (&Request{}).SetGRPC(bad); err == nil {
			t.Errorf("SetGRPC(%q) = nil, want an error", bad)
		}
	}
}

func TestRequestProtocol(t *testing.T) {
	for _, tc := range []struct {
		name        string
		protocol    string
		contentType string
		want        string
	}{
		{"plain HTTP", "", "", ""},
		{"gRPC content-type means HTTP/2", "", "application/grpc", "HTTP/2"},
		{"gRPC with a codec", "", "application/grpc+proto", "HTTP/2"},
		{"given protocol wins", "HTTP/3", "application/grpc", "HTTP/3"},
		{"not gRPC", "", "application/grpcx", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Request{Protocol: tc.protocol, Headers: map[string][]string{}}
			if tc.contentType != "" {
				r.Headers["content-type"] = []string{tc.contentType}
			}
			if got := r.WasmShim().Protocol; got != tc.want {
				t.Errorf("WasmShim().Protocol = %q, want %q", got, tc.want)
			}
		})
	}
}
