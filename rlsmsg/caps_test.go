package rlsmsg

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// capped builds a request of n descriptors, each of entries entries with
// a one-byte key and value, in domain "d".
func capped(n, entries int) *Request {
	r := &Request{Domain: "d", Descriptors: make([]Descriptor, n)}
	for i := range r.Descriptors {
		for range entries {
			r.Descriptors[i].Entries = append(r.Descriptors[i].Entries, Entry{Key: "k", Value: "v"})
		}
	}
	return r
}

var testCaps = Caps{MaxDescriptors: 4, MaxEntries: 3, MaxKeyBytes: 1 + 4*3*2}

// TestDecodeCaps: a request at every cap decodes as without caps; one over
// a cap is refused with a CapError giving the cap and the request's figure,
// counted over the whole input.
func TestDecodeCaps(t *testing.T) {
	moreEntries := capped(4, 3)
	moreEntries.Descriptors[2].Entries = append(moreEntries.Descriptors[2].Entries, Entry{Key: "k"}, Entry{Key: "k"})
	longer := capped(4, 3)
	longer.Descriptors[3].Entries[2].Value = "vv"
	entry := func(k, v string) []byte { return bytesField(descEntries, str(pairKey, k), str(pairValue, v)) }
	tests := []struct {
		name string
		b    []byte
		want *CapError
	}{
		{"at the caps", AppendRequest(nil, capped(4, 3)), nil},
		{"one descriptor more", AppendRequest(nil, capped(5, 0)), &CapError{Cap: CapDescriptors, Descriptor: -1, Max: 4, Got: 5}},
		{"many descriptors more", AppendRequest(nil, capped(3000, 3)), &CapError{Cap: CapDescriptors, Descriptor: -1, Max: 4, Got: 3000}},
		{"entries", AppendRequest(nil, moreEntries), &CapError{Cap: CapEntries, Descriptor: 2, Max: 3, Got: 5}},
		{"key bytes", AppendRequest(nil, longer), &CapError{Cap: CapKeyBytes, Descriptor: -1, Max: 25, Got: 26}},
		{"key bytes, the domain last", cat(bytesField(reqDescriptors, entry(strings.Repeat("k", 20), "v")), str(reqDomain, "ddddd")),
			&CapError{Cap: CapKeyBytes, Descriptor: -1, Max: 25, Got: 26}},
		{"every key field counts", bytesField(reqDescriptors, bytesField(descEntries, str(pairKey, strings.Repeat("k", 20)), str(pairKey, "kkkkkk"))),
			&CapError{Cap: CapKeyBytes, Descriptor: -1, Max: 25, Got: 26}},
		{"every domain counts", cat(str(reqDomain, strings.Repeat("d", 20)), str(reqDomain, "dddddd")),
			&CapError{Cap: CapKeyBytes, Descriptor: -1, Max: 25, Got: 26}},
		{"malformed after the cap: counted up to it", cat(AppendRequest(nil, capped(6, 0)), []byte{0x12, 0x05}),
			&CapError{Cap: CapDescriptors, Descriptor: -1, Max: 4, Got: 6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := RequestDecoder{Caps: testCaps}
			var r Request
			err := d.Decode(tc.b, &r)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("Decode = %v, want no error", err)
				}
				want, err := DecodeRequest(tc.b)
				if err != nil {
					t.Fatal(err)
				}
				checkRequest(t, want, &r)
				return
			}
			var ce *CapError
			if !errors.As(err, &ce) {
				t.Fatalf("Decode = %v, want a *CapError", err)
			}
			if diff := cmp.Diff(tc.want, ce); diff != "" {
				t.Errorf("CapError (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeCapsMalformedFirst: a malformed field before the cap is passed
// is a DecodeError, as without caps.
func TestDecodeCapsMalformedFirst(t *testing.T) {
	b := cat(bytesField(reqDescriptors, str(descEntries, "\x0a\x01")), AppendRequest(nil, capped(6, 0)))
	d := RequestDecoder{Caps: testCaps}
	var de *DecodeError
	if err := d.Decode(b, new(Request)); !errors.As(err, &de) || de.Field != "RateLimitRequest.descriptors[0].entries[0]" {
		t.Errorf("Decode = %v, want the DecodeError of descriptors[0].entries[0]", err)
	}
}

func TestCapErrorMessages(t *testing.T) {
	tests := []struct {
		err  *CapError
		want string
	}{
		{&CapError{Cap: CapDescriptors, Descriptor: -1, Max: 1024, Got: 1025}, "rlsmsg: RateLimitRequest.descriptors: 1025, over the cap of 1024 (MaxDescriptors)"},
		{&CapError{Cap: CapEntries, Descriptor: 3, Max: 64, Got: 65}, "rlsmsg: RateLimitRequest.descriptors[3].entries: 65, over the cap of 64 (MaxEntries)"},
		{&CapError{Cap: CapKeyBytes, Descriptor: -1, Max: 10, Got: 11}, "rlsmsg: RateLimitRequest.domain and entries: 11, over the cap of 10 (MaxKeyBytes)"},
	}
	for _, tc := range tests {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	if got := Cap(9).String(); got != "Cap(9)" {
		t.Errorf("Cap(9).String() = %q", got)
	}
}

// TestDecodeCapStopsEarly: a request far over MaxDescriptors is refused
// without building its descriptors: the decoder's arrays stay at the cap,
// and a refusal allocates no more than a decode at the cap.
func TestDecodeCapStopsEarly(t *testing.T) {
	b := AppendRequest(nil, capped(30000, 1))
	d := RequestDecoder{Caps: Caps{MaxDescriptors: 1024}}
	var r Request
	var ce *CapError
	if err := d.Decode(b, &r); !errors.As(err, &ce) || ce.Got != 30000 {
		t.Fatalf("Decode = %v, want a CapError of 30000 descriptors", err)
	}
	if len(d.descs) != 1024 || cap(d.descs) > 2048 || cap(d.entries) > 2048 {
		t.Errorf("after the refusal the decoder holds %d descriptors (capacity %d) and %d entries (capacity %d), want 1024 and no more than 2048",
			len(d.descs), cap(d.descs), len(d.entries), cap(d.entries))
	}
	allocs := testing.AllocsPerRun(20, func() { d.Decode(b, &r) })
	if allocs != 2 {
		t.Errorf("a refusal allocates %v times, want 2 (the input's copy and the error)", allocs)
	}
	d.Caps = Caps{MaxEntries: 1}
	b = AppendRequest(nil, capped(10, 3))
	d.Decode(b, &r)
	if allocs := testing.AllocsPerRun(20, func() { d.Decode(b, &r) }); allocs != 2 {
		t.Errorf("a refusal of entries allocates %v times, want 2 (the input's copy and the error)", allocs)
	}
}
