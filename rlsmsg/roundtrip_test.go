package rlsmsg

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestRoundTrip decodes what the encoders write: the same model, but for
// what the encoding cannot tell (an empty RawBody is none).
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var d RequestDecoder
	for range 2000 {
		req := randomRequest(rng)
		var got Request
		if err := d.Decode(AppendRequest(nil, req), &got); err != nil {
			t.Fatalf("Decode(AppendRequest(%+v)): %v", req, err)
		}
		checkRequest(t, requestFromGenerated(requestToGenerated(req)), &got)
		resp := randomResponse(t, rng)
		var gotResp Response
		if err := DecodeResponse(AppendResponse(nil, resp), &gotResp); err != nil {
			t.Fatalf("DecodeResponse(AppendResponse(%+v)): %v", resp, err)
		}
		if len(resp.RawBody) == 0 {
			resp.RawBody = nil
		}
		checkResponse(t, resp, &gotResp)
		if t.Failed() {
			return
		}
	}
}

// TestAppendEmptyMetadata: an empty Struct is written, a nil one is not.
func TestAppendEmptyMetadata(t *testing.T) {
	if got := AppendResponse(nil, &Response{DynamicMetadata: []byte{}}); !bytes.Equal(got, []byte{0x32, 0x00}) {
		t.Errorf("AppendResponse(empty DynamicMetadata) = %x, want 3200", got)
	}
	if got := AppendResponse(nil, &Response{}); len(got) != 0 {
		t.Errorf("AppendResponse(no DynamicMetadata) = %x, want nothing", got)
	}
	var r Response
	if err := DecodeResponse([]byte{0x32, 0x00}, &r); err != nil || r.DynamicMetadata == nil || len(r.DynamicMetadata) != 0 {
		t.Errorf("DecodeResponse(3200) = DynamicMetadata %#v, %v; want empty, not nil", r.DynamicMetadata, err)
	}
}
