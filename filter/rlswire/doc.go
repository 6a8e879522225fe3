// Package rlswire encodes and decodes the few protobuf messages a rate-limit filter exchanges
// with Envoy and the Rate Limit Service (RLS), by hand and with the standard library only, so
// that a proxy-wasm module built on it stays small and needs no protobuf runtime:
//
//   - envoy.service.ratelimit.v3.RateLimitRequest (domain, descriptors with their entries,
//     limit override and hits_addend, and the request's hits_addend): encoded by
//     AppendRequest;
//   - envoy.service.ratelimit.v3.RateLimitResponse (overall_code, statuses,
//     response_headers_to_add): decoded by DecodeResponse;
//   - envoy.config.core.v3.GrpcService{envoy_grpc{cluster_name}}, the upstream argument of
//     proxy_grpc_call: encoded by AppendGrpcService;
//   - envoy.config.core.v3.Metadata (filter_metadata as google.protobuf.Struct), the value of
//     Envoy's "metadata" and "xds.route_metadata" properties: decoded by DecodeMetadata.
//
// Encoding writes exactly the bytes protobuf-go's proto.Marshal writes for the same message
// (fields in number order, zero scalars omitted, set message fields written even when empty);
// the tests hold it to go-control-plane's generated types byte for byte. Decoding follows
// protobuf-go's proto.Unmarshal: unknown fields (including groups) are skipped, a known field
// with an unexpected wire type is treated as unknown, the last value of a scalar wins,
// repeated occurrences of a message field merge, and strings must be valid UTF-8. It reads
// only the fields listed above and ignores the rest of each message (request_headers_to_add,
// raw_body, dynamic_metadata and quota of a response, typed_filter_metadata of metadata).
// No input makes a decoder panic.
package rlswire
