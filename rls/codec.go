package rls

import (
	"google.golang.org/grpc/encoding"
	protocodec "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// Codec is the gRPC codec of Service.ServerOptions (encoding.CodecV2, named
// "proto" as the codec it stands in for, so the content-subtype is
// unchanged): the calls of a Service registered with Register are decoded
// and encoded by package rlsmsg, straight between the wire and the model,
// and every other message (gRPC health, reflection, the go-control-plane
// messages of a Service registered with
// rlsv3.RegisterRateLimitServiceServer) goes to gRPC's proto codec.
type Codec struct{}

var _ encoding.CodecV2 = Codec{}

// Name returns "proto".
func (Codec) Name() string { return protocodec.Name }

// Marshal encodes v. A call's response is encoded once, after which the
// call goes back to its Service's pool.
func (Codec) Marshal(v any) (mem.BufferSlice, error) {
	c, ok := v.(*call)
	if !ok {
		return protoCodec().Marshal(v)
	}
	defer c.svc.release(c)
	size := rlsmsg.ResponseSize(&c.res.Response)
	if mem.IsBelowBufferPoolingThreshold(size) {
		return mem.BufferSlice{mem.SliceBuffer(rlsmsg.AppendResponse(make([]byte, 0, size), &c.res.Response))}, nil
	}
	pool := mem.DefaultBufferPool()
	buf := pool.Get(size)
	*buf = rlsmsg.AppendResponse((*buf)[:0], &c.res.Response)
	return mem.BufferSlice{mem.NewBuffer(buf, pool)}, nil
}

// Unmarshal decodes data into v. A call's request is decoded into the
// call's own storage, its strings copied out of data; a request over the
// Service's caps is not an error here (gRPC would answer Internal) but an
// invalid request the call answers.
func (Codec) Unmarshal(data mem.BufferSlice, v any) error {
	c, ok := v.(*call)
	if !ok {
		return protoCodec().Unmarshal(data, v)
	}
	if len(data) == 1 {
		return c.decoded(c.dec.Decode(data[0].ReadOnlyData(), &c.req))
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	return c.decoded(c.dec.Decode(buf.ReadOnlyData(), &c.req))
}

// protoCodec is gRPC's proto codec, registered by its package's init.
func protoCodec() encoding.CodecV2 {
	return encoding.GetCodecV2(protocodec.Name)
}
