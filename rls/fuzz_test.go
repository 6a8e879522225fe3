package rls

import (
	"context"
	"testing"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/grpc/codes"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// FuzzShouldRateLimit feeds arbitrary wire bytes to ShouldRateLimit: a
// request that decodes is answered with one status per descriptor or
// refused with InvalidArgument exactly when invalidRequest says so, and
// response headers never come without a status that has a limit.
func FuzzShouldRateLimit(f *testing.F) {
	seeds := []*rlsv3.RateLimitRequest{
		request("shop", 0, desc("user", "alice")),
		request("shop", 3, withHits(desc("user", "bob"), 0), desc("path", "/cart", "user", "x")),
		request("shop", 0, withOverride(desc("k", "v"), 2, typev3.RateLimitUnit_HOUR)),
		request("", 0, desc()),
		request("shop", 0, desc("", "")),
	}
	for _, r := range seeds {
		b, err := proto.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	s := newService(f, shopLimits, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		req := new(rlsv3.RateLimitRequest)
		if proto.Unmarshal(data, req) != nil {
			return
		}
		got, err := s.ShouldRateLimit(context.Background(), req)
		invalid := invalidRequest(req)
		switch {
		case invalid && grpcstatus.Code(err) != codes.InvalidArgument:
			t.Fatalf("ShouldRateLimit(%v) = %v, %v; want InvalidArgument", req, got, err)
		case !invalid && err != nil:
			t.Fatalf("ShouldRateLimit(%v) error %v, want none", req, err)
		case !invalid && len(got.GetStatuses()) != len(req.GetDescriptors()):
			t.Fatalf("ShouldRateLimit(%v) = %d statuses, want %d", req, len(got.GetStatuses()), len(req.GetDescriptors()))
		case !invalid && len(got.GetResponseHeadersToAdd()) > 0 && mostRestrictive(responseFromProto(t, got).Statuses) == nil:
			t.Fatalf("ShouldRateLimit(%v) added headers %v without a limited status", req, got.GetResponseHeadersToAdd())
		}
	})
}

// invalidRequest reports whether rlpkit's conventions and Limitador's
// evaluation refuse req: an empty domain, a descriptor without entries, an
// empty key, a refund, an override of an unknown unit or multiplied.
func invalidRequest(req *rlsv3.RateLimitRequest) bool {
	if req.GetDomain() == "" {
		return true
	}
	for _, d := range req.GetDescriptors() {
		if len(d.GetEntries()) == 0 || d.GetIsNegativeHits() {
			return true
		}
		for _, e := range d.GetEntries() {
			if e.GetKey() == "" {
				return true
			}
		}
		if o := d.GetLimit(); o != nil && (o.GetUnit() == typev3.RateLimitUnit_UNKNOWN || o.GetUnit() > 7 /* WEEK, a response unit, is accepted in an override too */ ||
			o.GetUnitMultiplier() != nil && o.GetUnitMultiplier().GetValue() != 1) {
			return true
		}
	}
	return false
}
