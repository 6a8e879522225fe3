package rls

import (
	"runtime"

	"google.golang.org/grpc"
)

// workersPerProc is how many stream workers ServerOptions asks for per
// GOMAXPROCS: enough for the calls a server keeps in flight while they wait
// for a store such as Redis.
const workersPerProc = 16

// ServerOptions returns the grpc.ServerOptions a Service is best served
// with, for grpc.NewServer: a pool of stream workers
// (grpc.NumStreamWorkers), so that a call runs on a goroutine whose stack
// has already grown instead of on a new one (with Envoy's small requests,
// creating the goroutine and growing its stack is a tenth of a call's CPU
// time). A call arriving while every worker is busy still gets a goroutine
// of its own.
func ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.NumStreamWorkers(uint32(workersPerProc * runtime.GOMAXPROCS(0))),
	}
}
