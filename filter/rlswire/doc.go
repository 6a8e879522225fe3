// Package rlswire encodes and decodes the two protobuf messages a rate-limit filter exchanges
// with Envoy besides the Rate Limit Service's own (package rlsmsg has those), by hand and with
// the standard library only, so that a proxy-wasm module built on it stays small and needs no
// protobuf runtime:
//
//   - envoy.config.core.v3.GrpcService{envoy_grpc{cluster_name}}, the upstream argument of
//     proxy_grpc_call: encoded by AppendGrpcService;
//   - envoy.config.core.v3.Metadata (filter_metadata as google.protobuf.Struct), the value of
//     Envoy's "metadata" and "xds.route_metadata" properties: decoded by DecodeMetadata.
//
// Encoding writes exactly the bytes protobuf-go's proto.Marshal writes for the same message;
// the tests hold it to go-control-plane's generated types byte for byte. Decoding reads the
// fields with rlsmsg.EachField and follows protobuf-go's proto.Unmarshal: unknown fields
// (including groups) are skipped, a known field with an unexpected wire type is treated as
// unknown, the last value of a scalar wins, repeated occurrences of a message field merge,
// strings must be valid UTF-8, and messages nest at most rlsmsg.MaxDepth deep. It ignores
// typed_filter_metadata. No input makes a decoder panic.
package rlswire
