package rls

import (
	"context"

	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// ShouldRateLimit implements rlsv3.RateLimitServiceServer with
// go-control-plane's message types, for a program that registers the
// Service with rlsv3.RegisterRateLimitServiceServer or calls it in
// process: the request goes through the same codec as on Register's path
// (proto.Marshal, then rlsmsg, with the Service's caps), and so does the
// answer. It answers a status per descriptor, in request order, or a gRPC
// error with the codes of the Service's Conventions; Canceled or
// DeadlineExceeded when the caller gave up (ctx is done) before the store
// answered.
func (s *Service) ShouldRateLimit(ctx context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
	resp, _, err := s.shouldRateLimit(ctx, req)
	return resp, err
}

// shouldRateLimit is ShouldRateLimit, reporting why a call was refused as
// an invalid request, if it was.
func (s *Service) shouldRateLimit(ctx context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, refusal, error) {
	b, err := proto.Marshal(req)
	if err != nil {
		return nil, notRefused, status.Error(codes.Internal, s.conv.Prefix+"encoding the request: "+err.Error())
	}
	c := s.get()
	defer s.release(c)
	if err := c.decoded(c.dec.Decode(b, &c.req)); err != nil {
		return nil, notRefused, status.Error(codes.Internal, s.conv.Prefix+err.Error())
	}
	if err := s.decide(ctx, c); err != nil {
		switch {
		case c.refused != nil:
			return nil, refusedOverCap, err
		case c.invalid:
			return nil, refusedInvalid, err
		}
		return nil, notRefused, err
	}
	out := new(rlsv3.RateLimitResponse)
	if err := proto.Unmarshal(rlsmsg.AppendResponse(nil, &c.res.Response), out); err != nil {
		return nil, notRefused, status.Error(codes.Internal, s.conv.Prefix+"decoding the response: "+err.Error())
	}
	return out, notRefused, nil
}

// refusal tells why a call was refused as an invalid request, if it was.
type refusal uint8

const (
	notRefused     refusal = iota
	refusedInvalid         // an invalid request
	refusedOverCap         // a request over one of rlpkit's caps
)
