package rls

import (
	"google.golang.org/grpc"

	"github.com/rlpkit/rlpkit/rls/wire"
)

// ServerOptions returns the grpc.ServerOptions a Service is best served
// with, for grpc.NewServer: those of wire.ServerOptions, a codec for the
// RLS messages that needs no protobuf reflection and a pool of stream
// workers.
func ServerOptions() []grpc.ServerOption {
	return wire.ServerOptions()
}
