package rlsmsg

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
)

// fullRequest sets every field of every message a request holds, with
// zero and extreme values where protobuf tells them apart.
func fullRequest() *Request {
	return &Request{
		Domain:     "gateway-system/gw#default/toystore",
		HitsAddend: 7,
		Descriptors: []Descriptor{
			{Entries: []Entry{{Key: "user", Value: "alice"}, {Key: "path", Value: "/cart"}}},
			{
				Entries:        []Entry{{Key: "remote_address", Value: ""}},
				Limit:          &Override{RequestsPerUnit: 42, Unit: UnitMinute, UnitMultiplier: ptr[uint32](3)},
				HitsAddend:     ptr[uint64](1 << 40),
				IsNegativeHits: true,
			},
			{Entries: []Entry{{Key: "k", Value: "välue ✓"}}, HitsAddend: ptr[uint64](0)},
			{},
			{Entries: []Entry{{}}, Limit: &Override{UnitMultiplier: ptr[uint32](0)}},
			{Limit: &Override{RequestsPerUnit: math.MaxUint32, Unit: UnitYear}, HitsAddend: ptr[uint64](math.MaxUint64)},
		},
	}
}

func TestAppendRequest(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name string
		req  *Request
	}{
		{"empty", &Request{}},
		{"domain only", &Request{Domain: "d"}},
		{"every field", fullRequest()},
		{"an empty descriptor", &Request{Domain: "d", Descriptors: []Descriptor{{}}}},
		{"empty entries", &Request{Descriptors: []Descriptor{{Entries: []Entry{{}, {Key: "k"}, {Value: "v"}}}}}},
		{"a set zero hits_addend", &Request{Descriptors: []Descriptor{{HitsAddend: ptr[uint64](0)}}}},
		{"an empty override", &Request{Descriptors: []Descriptor{{Limit: &Override{}}}}},
		{"is_negative_hits alone", &Request{Descriptors: []Descriptor{{IsNegativeHits: true}}}},
		{"a negative unit", &Request{Descriptors: []Descriptor{{Limit: &Override{Unit: -1}}}}},
		{"an unknown unit", &Request{Descriptors: []Descriptor{{Limit: &Override{Unit: UnitWeek}}}}},
		{"the largest request hits_addend", &Request{HitsAddend: math.MaxUint32}},
		{"lengths over one byte", &Request{Domain: long, Descriptors: []Descriptor{{Entries: []Entry{{Key: long, Value: strings.Repeat("é", 20000)}}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkAppendRequest(t, tc.req)
		})
	}
}

// checkAppendRequest holds AppendRequest and RequestSize to proto.Marshal
// of the generated message.
func checkAppendRequest(t *testing.T, r *Request) {
	t.Helper()
	want, err := proto.Marshal(requestToGenerated(r))
	if err != nil {
		t.Fatalf("proto.Marshal: %v", err)
	}
	checkAppend(t, want, func(b []byte) []byte { return AppendRequest(b, r) }, RequestSize(r))
}

// randomString returns a string of up to 150 bytes, often empty, with
// characters of one to four bytes.
func randomString(rng *rand.Rand) string {
	var sb strings.Builder
	for range rng.IntN(3) * rng.IntN(50) {
		sb.WriteRune([]rune{'a', 'z', '-', 'é', '✓', '𝄞', 0}[rng.IntN(7)])
	}
	return sb.String()
}

// randomUint returns a number of any size up to max bits, often 0.
func randomUint(rng *rand.Rand, bits int) uint64 {
	if rng.IntN(4) == 0 {
		return 0
	}
	return rng.Uint64() >> (64 - bits) >> rng.IntN(bits)
}

func randomRequest(rng *rand.Rand) *Request {
	r := &Request{Domain: randomString(rng), HitsAddend: uint32(randomUint(rng, 32))}
	for range rng.IntN(6) {
		var d Descriptor
		for range rng.IntN(5) {
			d.Entries = append(d.Entries, Entry{Key: randomString(rng), Value: randomString(rng)})
		}
		if rng.IntN(3) == 0 {
			d.Limit = &Override{RequestsPerUnit: uint32(randomUint(rng, 32)), Unit: Unit(int32(randomUint(rng, 32)))}
			if rng.IntN(2) == 0 {
				d.Limit.UnitMultiplier = ptr(uint32(randomUint(rng, 32)))
			}
		}
		if rng.IntN(3) == 0 {
			d.HitsAddend = ptr(randomUint(rng, 64))
		}
		d.IsNegativeHits = rng.IntN(4) == 0
		r.Descriptors = append(r.Descriptors, d)
	}
	return r
}

func TestAppendRequestRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 3000 {
		checkAppendRequest(t, randomRequest(rng))
		if t.Failed() {
			return
		}
	}
}
