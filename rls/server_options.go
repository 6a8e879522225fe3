package rls

import (
	"runtime"

	"google.golang.org/grpc"
)

// workersPerProc is how many stream workers Service.ServerOptions asks for per
// GOMAXPROCS: enough for the calls a server keeps in flight while they wait
// for a store such as Redis.
const workersPerProc = 16

// windowSize is the HTTP/2 flow control window Service.ServerOptions sets for each
// stream and each connection.
const windowSize = 1 << 20

// ServerOptions returns the grpc.ServerOptions s is best served with, for
// grpc.NewServer:
//
//   - Codec (grpc.ForceServerCodecV2), which decodes the requests of
//     Register's service straight into the RLS model and encodes its
//     responses from it (package rlsmsg), with no protobuf reflection;
//   - a receive limit (grpc.MaxRecvMsgSize) matching the Service's caps,
//     RequestCaps.MaxRecvMsgSize (about 1.3 MiB with the defaults, where
//     gRPC's own is 4 MiB): a longer message is refused with
//     ResourceExhausted before it is read whole;
//   - a pool of stream workers (grpc.NumStreamWorkers), so that a call
//     runs on a goroutine whose stack has already grown instead of on a new
//     one (with Envoy's small requests, creating the goroutine and growing
//     its stack is a tenth of a call's CPU time). A call arriving while
//     every worker is busy still gets a goroutine of its own;
//   - static HTTP/2 flow control windows of 1 MiB per stream and per
//     connection (grpc.InitialWindowSize, grpc.InitialConnWindowSize),
//     which turn off grpc-go's bandwidth estimation: with its dynamic
//     windows a server sends a PING whenever data arrives and none is
//     outstanding, a frame and often a write of its own several times per
//     millisecond under load, and the windows of RLS calls, a few hundred
//     bytes each, have no use for growing. 1 MiB is thousands of requests
//     in flight per connection before a WINDOW_UPDATE is due.
//
// Options given after them to grpc.NewServer override them.
func (s *Service) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ForceServerCodecV2(Codec{}),
		grpc.MaxRecvMsgSize(s.caps.MaxRecvMsgSize()),
		grpc.NumStreamWorkers(uint32(StreamWorkers())),
		grpc.InitialWindowSize(windowSize),
		grpc.InitialConnWindowSize(windowSize),
	}
}

// StreamWorkers is the number of stream workers Service.ServerOptions asks for.
func StreamWorkers() int {
	return workersPerProc * runtime.GOMAXPROCS(0)
}
