package wire

import (
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
)

// Codec is a gRPC codec (encoding.CodecV2, named "proto" as the codec it
// stands in for) that decodes RateLimitRequest and encodes
// RateLimitResponse itself and hands every other message, and every one it
// does not take its own path for (see the package doc), to gRPC's proto
// codec. Install it with grpc.ForceServerCodecV2, as ServerOptions does.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Name returns "proto": the content-subtype is unchanged.
func (Codec) Name() string { return protocodec.Name }

// Marshal encodes v.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	r, ok := v.(*rlsv3.RateLimitResponse)
	if !ok || r == nil || !encodable(r) {
		return protoCodec().Marshal(v)
	}
	size := responseSize(r)
	if mem.IsBelowBufferPoolingThreshold(size) {
		return mem.BufferSlice{mem.SliceBuffer(appendResponse(make([]byte, 0, size), r))}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	*buf = appendResponse((*buf)[:0], r)
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal decodes data into v.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	r, ok := v.(*rlsv3.RateLimitRequest)
	if !ok || r == nil {
		return protoCodec().Unmarshal(data, v)
	}
	var b []byte
	if len(data) == 1 {
		b = data[0].ReadOnlyData()
	} else {
		buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
		defer buf.Free()
		b = buf.ReadOnlyData()
	}
	if decodeRequest(b, r) {
		return nil
	}
	return protoCodec().Unmarshal(data, v)
}

// protoCodec is gRPC's proto codec, registered by its package's init.
func protoCodec() encoding.CodecV2 {
	return encoding.GetCodecV2(protocodec.Name)
}
