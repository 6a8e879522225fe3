package rls

import (
	"context"
	"time"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
)

// ShouldRateLimit implements rlsv3.RateLimitServiceServer with
// go-control-plane's message types. It answers a status per descriptor, in
// request order, or a gRPC error with the codes of the Service's
// Conventions; Canceled or DeadlineExceeded when the caller gave up (ctx is
// done) before the store answered.
func (s *Service) ShouldRateLimit(ctx context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	start := time.Now()
	c := s.calls.Get().(*call)
	defer s.release(c)
	c.buf.fromProto(req, &c.req)
	if err := s.decide(ctx, start, c); err != nil {
		return nil, err
	}
	return toProto(&c.res.Response), nil
}
