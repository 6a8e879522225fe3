package policyapi

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitGRPCPath(t *testing.T) {
	for _, tc := range []struct {
		path, service, method string
		ok                    bool
	}{
		{"/echo.v1.Echo/Say", "echo.v1.Echo", "Say", true},
		{"/Echo/Say", "Echo", "Say", true},
		{"/echo.v1.Echo", "", "", false},
		{"/echo.v1.Echo/", "", "", false},
		{"//Say", "", "", false},
		{"echo.v1.Echo/Say", "", "", false},
		{"/echo.v1.Echo/Say/more", "", "", false},
		{"/echo.v1.Echo/Say?x=1", "", "", false},
	} {
		service, method, err := SplitGRPCPath(tc.path)
		if service != tc.service || method != tc.method || (err == nil) != tc.ok {
			t.Errorf("SplitGRPCPath(%q) = %q, %q, %v, want %q, %q, ok %v", tc.path, service, method, err, tc.service, tc.method, tc.ok)
		}
	}
}

func TestAsGRPC(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      Request
		want    Request
		wantErr bool
	}{
		{
			name: "plain",
			in:   Request{Method: "GET", Host: "echo.test", Path: "/echo.v1.Echo/Say", Headers: map[string][]string{"x-user": {"alice"}}},
			want: Request{Method: "POST", Host: "echo.test", Path: "/echo.v1.Echo/Say", Headers: map[string][]string{
				"x-user": {"alice"}, "content-type": {"application/grpc"}, "te": {"trailers"}}},
		},
		{
			name: "own gRPC content type kept",
			in:   Request{Path: "/a.B/C", Headers: map[string][]string{"content-type": {"application/grpc+proto"}, "te": {"trailers"}}},
			want: Request{Method: "POST", Path: "/a.B/C", Headers: map[string][]string{"content-type": {"application/grpc+proto"}, "te": {"trailers"}}},
		},
		{name: "JSON content type", in: Request{Path: "/a.B/C", Headers: map[string][]string{"content-type": {"application/json"}}}, wantErr: true},
		{name: "grpc-web is not gRPC", in: Request{Path: "/a.B/C", Headers: map[string][]string{"content-type": {"application/grpc-web"}}}, wantErr: true},
		{name: "not a method", in: Request{Path: "/v1/things/7"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.in
			err := AsGRPC(&got)
			if (err != nil) != tc.wantErr {
				t.Fatalf("AsGRPC(%+v) error %v, want error %v", tc.in, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("AsGRPC (-want +got):\n%s", diff)
			}
		})
	}
}
