// Package wire encodes and decodes the messages of Envoy's Rate Limit
// Service (envoy.service.ratelimit.v3) for a gRPC server without protobuf
// reflection: Codec decodes a RateLimitRequest and encodes a
// RateLimitResponse field by field, in a few allocations per message,
// where google.golang.org/protobuf's generic codec allocates every
// descriptor, entry and string on its own. ServerOptions returns the
// grpc.ServerOptions that package rls and ratelimit/service are served
// with, the codec among them.
//
// Codec is exact: its bytes and messages are those of proto.Marshal and
// proto.Unmarshal. It takes its own path only for what an RLS server reads
// and writes, and hands anything else to gRPC's proto codec unchanged: other
// message types, and requests and responses that carry unknown fields, a
// field with an unexpected wire type, a singular message field repeated on
// the wire (which protobuf merges), strings that are not UTF-8 (an error
// there), nil list elements, or fields an RLS server never writes
// (dynamic_metadata, quota).
//
// go-control-plane ships vtprotobuf marshalers for these messages, but only
// behind the vtprotobuf build tag and without unmarshalers, so a program
// built the ordinary way cannot use them; this codec needs no build tag.
package wire
