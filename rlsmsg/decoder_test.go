package rlsmsg

import (
	"testing"
)

// TestDecodeAllocs: once its arrays are large enough, a decoder allocates
// the input's copy and nothing else.
func TestDecodeAllocs(t *testing.T) {
	for name, req := range map[string]*Request{"one descriptor": oneDescriptor, "every field": fullRequest()} {
		b := AppendRequest(nil, req)
		var d RequestDecoder
		var r Request
		if err := d.Decode(b, &r); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(100, func() {
			if err := d.Decode(b, &r); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 1 {
			t.Errorf("%s: Decode allocates %v times, want 1 (the input's copy)", name, allocs)
		}
		checkRequest(t, req, &r)
	}
}

// TestDecoderReuse decodes requests large and small with one decoder:
// each comes out whole, whatever came before.
func TestDecoderReuse(t *testing.T) {
	var d RequestDecoder
	for _, req := range []*Request{fullRequest(), {Domain: "d"}, oneDescriptor, fullRequest(), {}, {Descriptors: make([]Descriptor, 40)}, oneDescriptor} {
		var r Request
		if err := d.Decode(AppendRequest(nil, req), &r); err != nil {
			t.Fatal(err)
		}
		checkRequest(t, requestFromGenerated(requestToGenerated(req)), &r)
	}
}

// TestDecodeEntriesCapped: a descriptor's entries end the capacity of
// their slice of the decoder's array, so that appending to one
// descriptor's entries cannot overwrite the next one's.
func TestDecodeEntriesCapped(t *testing.T) {
	r, err := DecodeRequest(AppendRequest(nil, fullRequest()))
	if err != nil {
		t.Fatal(err)
	}
	r.Descriptors[0].Entries = append(r.Descriptors[0].Entries, Entry{Key: "added"})
	if got := r.Descriptors[1].Entries[0].Key; got != "remote_address" {
		t.Errorf("after appending to descriptors[0].entries, descriptors[1].entries[0].key = %q, want remote_address", got)
	}
}

// TestDecoderReset: Reset leaves no string of the last input in the
// decoder, and the decoder decodes again.
func TestDecoderReset(t *testing.T) {
	var d RequestDecoder
	var r Request
	if err := d.Decode(AppendRequest(nil, fullRequest()), &r); err != nil {
		t.Fatal(err)
	}
	d.Reset()
	if d.s != "" {
		t.Errorf("after Reset the decoder keeps the input %q", d.s)
	}
	for i, e := range d.entries[:cap(d.entries)] {
		if e != (Entry{}) {
			t.Errorf("after Reset entries[%d] = %+v, want none", i, e)
		}
	}
	for i, desc := range d.descs[:cap(d.descs)] {
		if desc.Entries != nil || desc.Limit != nil || desc.HitsAddend != nil {
			t.Errorf("after Reset descs[%d] = %+v, want none", i, desc)
		}
	}
	if err := d.Decode(AppendRequest(nil, oneDescriptor), &r); err != nil {
		t.Fatal(err)
	}
	checkRequest(t, oneDescriptor, &r)
}
