package service

import (
	"google.golang.org/grpc"

	"github.com/rlpkit/rlpkit/rls/wire"
)

// ServerOptions returns the grpc.ServerOptions a Service is best served
// with, for grpc.NewServer: wire.ServerOptions, as package rls serves its
// own Service (a codec for the RLS messages that needs no protobuf
// reflection, a pool of stream workers and static HTTP/2 windows).
func ServerOptions() []grpc.ServerOption {
	return wire.ServerOptions()
}
