package rlswire

import (
	"bytes"
	"math/rand/v2"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func u64(v uint64) *uint64 { return &v }

// generated builds the go-control-plane message equivalent to r.
func generated(r *Request) *rlsv3.RateLimitRequest {
	out := &rlsv3.RateLimitRequest{Domain: r.Domain, HitsAddend: r.HitsAddend}
	for _, d := range r.Descriptors {
		gd := &rlcommon.RateLimitDescriptor{}
		for _, e := range d.Entries {
			gd.Entries = append(gd.Entries, &rlcommon.RateLimitDescriptor_Entry{Key: e.Key, Value: e.Value})
		}
		if d.Limit != nil {
			gd.Limit = &rlcommon.RateLimitDescriptor_RateLimitOverride{RequestsPerUnit: d.Limit.RequestsPerUnit, Unit: typev3.RateLimitUnit(d.Limit.Unit)}
		}
		if d.HitsAddend != nil {
			gd.HitsAddend = wrapperspb.UInt64(*d.HitsAddend)
		}
		out.Descriptors = append(out.Descriptors, gd)
	}
	return out
}

func TestAppendRequest(t *testing.T) {
	tests := []struct {
		name string
		req  Request
	}{
		{name: "empty"},
		{name: "domain only", req: Request{Domain: "gw-ns/gw#default/toystore"}},
		{name: "toystore", req: Request{Domain: "toystore-app", Descriptors: []Descriptor{
			{Entries: []Entry{{Key: "admin", Value: "yes"}}},
			{Entries: []Entry{{Key: "vhaction", Value: "yes"}}},
		}}},
		{name: "empty entry and empty descriptor", req: Request{Domain: "d", Descriptors: []Descriptor{
			{Entries: []Entry{{}, {Key: "k"}, {Value: "v"}}}, {},
		}}},
		{name: "override, costs and request hits", req: Request{Domain: "d", HitsAddend: 300, Descriptors: []Descriptor{
			{Entries: []Entry{{Key: "user", Value: "alice"}}, Limit: &Override{RequestsPerUnit: 42, Unit: 2}, HitsAddend: u64(5)},
			{Entries: []Entry{{Key: "user", Value: "bob"}}, Limit: &Override{}, HitsAddend: u64(0)},
			{Entries: []Entry{{Key: "k", Value: "v"}}, Limit: &Override{RequestsPerUnit: 1<<32 - 1, Unit: 6}, HitsAddend: u64(1<<64 - 1)},
		}}},
		{name: "negative enum", req: Request{Domain: "d", Descriptors: []Descriptor{{Limit: &Override{Unit: -1}}}}},
		{name: "long value needs a two-byte length", req: Request{Domain: string(bytes.Repeat([]byte("x"), 300)),
			Descriptors: []Descriptor{{Entries: []Entry{{Key: "k", Value: string(bytes.Repeat([]byte("é"), 200))}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkRequest(t, &tc.req)
		})
	}
}

// checkRequest compares AppendRequest with proto.Marshal of the generated type.
func checkRequest(t *testing.T, r *Request) {
	t.Helper()
	want, err := proto.Marshal(generated(r))
	if err != nil {
		t.Fatalf("proto.Marshal: %v", err)
	}
	prefix := []byte("prefix")
	got := AppendRequest(append([]byte(nil), prefix...), r)
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("AppendRequest lost the prefix it appends to: %q", got)
	}
	if got = got[len(prefix):]; !bytes.Equal(got, want) {
		t.Errorf("AppendRequest(%+v) =\n%x\nwant (proto.Marshal)\n%x", r, got, want)
	}
}

// TestAppendRequestRandom compares random requests with proto.Marshal.
func TestAppendRequestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	str := func() string {
		b := make([]byte, rng.IntN(3)*rng.IntN(70))
		for i := range b {
			b[i] = byte('a' + rng.IntN(26))
		}
		return string(b)
	}
	for range 2000 {
		r := Request{Domain: str()}
		if rng.IntN(2) == 0 {
			r.HitsAddend = rng.Uint32() >> rng.IntN(32)
		}
		for range rng.IntN(5) {
			var d Descriptor
			for range rng.IntN(4) {
				d.Entries = append(d.Entries, Entry{Key: str(), Value: str()})
			}
			if rng.IntN(3) == 0 {
				d.Limit = &Override{RequestsPerUnit: rng.Uint32() >> rng.IntN(32), Unit: int32(rng.IntN(7))}
			}
			if rng.IntN(3) == 0 {
				d.HitsAddend = u64(rng.Uint64() >> rng.IntN(64))
			}
			r.Descriptors = append(r.Descriptors, d)
		}
		checkRequest(t, &r)
		if t.Failed() {
			return
		}
	}
}

func TestAppendGrpcService(t *testing.T) {
	for _, cluster := range []string{"", "rate-limit-cluster", "a", "\n", string(bytes.Repeat([]byte("c"), 200))} {
		want, err := proto.Marshal(&corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
			EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendGrpcService(nil, cluster); !bytes.Equal(got, want) {
			t.Errorf("AppendGrpcService(%q) = %x, want %x", cluster, got, want)
		}
	}
}

func BenchmarkAppendRequest(b *testing.B) {
	r := &Request{Domain: "gateway-system/mygateway#default/toystore", Descriptors: []Descriptor{
		{Entries: []Entry{{Key: "remote_address", Value: "203.0.113.7"}}},
		{Entries: []Entry{{Key: "my-gw-key", Value: "my-gw-value"}}, HitsAddend: u64(2)},
	}}
	b.ReportAllocs()
	var buf []byte
	for b.Loop() {
		buf = AppendRequest(buf[:0], r)
	}
}
