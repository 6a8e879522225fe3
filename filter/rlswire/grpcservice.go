package rlswire

import "github.com/rlpkit/rlpkit/rlsmsg"

// Field numbers of envoy.config.core.v3.GrpcService and its EnvoyGrpc.
const (
	grpcServiceEnvoyGrpc = 1
	envoyGrpcClusterName = 1
)

// AppendGrpcService appends the encoding of an envoy.config.core.v3.GrpcService whose
// envoy_grpc names cluster: what proxy_grpc_call expects as its upstream, so that the host
// never mistakes a cluster name for a serialized GrpcService.
func AppendGrpcService(b []byte, cluster string) []byte {
	inner := 0
	if cluster != "" {
		inner = 1 + rlsmsg.SizeVarint(uint64(len(cluster))) + len(cluster) // a one-byte tag
	}
	b = rlsmsg.AppendTag(b, grpcServiceEnvoyGrpc, rlsmsg.WireBytes)
	b = rlsmsg.AppendVarint(b, uint64(inner))
	if cluster != "" {
		b = rlsmsg.AppendTag(b, envoyGrpcClusterName, rlsmsg.WireBytes)
		b = rlsmsg.AppendVarint(b, uint64(len(cluster)))
		b = append(b, cluster...)
	}
	return b
}
