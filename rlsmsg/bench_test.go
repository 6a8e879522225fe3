package rlsmsg

import (
	"strconv"
	"testing"
	"time"
)

// oneDescriptor is a typical request: Kuadrant's filter sends one
// descriptor of a few entries.
var oneDescriptor = &Request{Domain: "gateway-system/mygateway#default/toystore", Descriptors: []Descriptor{
	{Entries: []Entry{{Key: "limit.toystore__f8e32a75", Value: "1"}, {Key: "auth.identity.userid", Value: "alice"}}},
}}

func BenchmarkDecodeRequest(b *testing.B) {
	msg := AppendRequest(nil, oneDescriptor)
	var d RequestDecoder
	var r Request
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := d.Decode(msg, &r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendRequest(b *testing.B) {
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendRequest(buf[:0], oneDescriptor)
	}
	b.SetBytes(int64(len(buf)))
}

// response returns what a server answers a request of n descriptors.
func response(n int) *Response {
	r := &Response{OverallCode: CodeOK}
	for i := range n {
		r.Statuses = append(r.Statuses, Status{Code: CodeOK, LimitRemaining: 9,
			CurrentLimit:       &RateLimit{Name: "limit-" + strconv.Itoa(i), RequestsPerUnit: 10, Unit: UnitMinute},
			DurationUntilReset: 42 * time.Second, HasDurationUntilReset: true})
	}
	r.ResponseHeadersToAdd = []Header{{Key: "RateLimit-Limit", Value: "10"}, {Key: "RateLimit-Remaining", Value: "9"}}
	return r
}

func BenchmarkAppendResponse(b *testing.B) {
	for _, n := range []int{1, 3} {
		b.Run(strconv.Itoa(n)+" descriptors", func(b *testing.B) {
			r := response(n)
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendResponse(buf[:0], r)
			}
			b.SetBytes(int64(len(buf)))
		})
	}
}

func BenchmarkDecodeResponse(b *testing.B) {
	msg := AppendResponse(nil, response(1))
	var r Response
	b.ReportAllocs()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if err := DecodeResponse(msg, &r); err != nil {
			b.Fatal(err)
		}
	}
}
