package wire

import (
	"unicode/utf8"

	rlcommon "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// Field numbers of the request messages (envoy/service/ratelimit/v3/rls.proto,
// envoy/extensions/common/ratelimit/v3/ratelimit.proto).
const (
	reqDomain      = 1
	reqDescriptors = 2
	reqHitsAddend  = 3

	descEntries        = 1
	descLimit          = 2
	descHitsAddend     = 3
	descIsNegativeHits = 4

	entryKey   = 1
	entryValue = 2

	overrideRequestsPerUnit = 1
	overrideUnit            = 2
	overrideUnitMultiplier  = 3

	wrapperValue = 1
)

// decodeRequest decodes b into r, which it resets first, and reports
// whether it could: false means b holds something this decoder leaves to
// proto.Unmarshal (see the package doc), and r is then unspecified.
//
// It reads b twice: once to check it and count the descriptors and entries,
// then to fill r, whose descriptors and entries it allocates in one array
// each (one block for all of them with one descriptor of up to four
// entries) and whose strings are substrings of one copy of b.
func decodeRequest(b []byte, r *rlsv3.RateLimitRequest) bool {
	d := reqDecoder{b: b}
	if !d.request() {
		return false
	}
	r.Reset()
	d.r, d.fill = r, true
	d.s = string(b)
	switch {
	case d.nd == 1 && d.ne <= len(oneDescriptor{}.entries):
		one := new(oneDescriptor)
		d.descs, r.Descriptors = one.desc[:], one.descPtr[:]
		d.entries, d.entryPtrs = one.entries[:d.ne], one.entryPtrs[:d.ne]
	case d.nd > 0:
		d.descs = make([]rlcommon.RateLimitDescriptor, d.nd)
		r.Descriptors = make([]*rlcommon.RateLimitDescriptor, d.nd)
		d.entries = make([]rlcommon.RateLimitDescriptor_Entry, d.ne)
		d.entryPtrs = make([]*rlcommon.RateLimitDescriptor_Entry, d.ne)
	}
	d.nd, d.ne = 0, 0
	return d.request()
}

// oneDescriptor holds the messages of a request with one descriptor of at
// most four entries, the common case (Kuadrant's filter sends one
// descriptor), in one allocation.
type oneDescriptor struct {
	desc      [1]rlcommon.RateLimitDescriptor
	descPtr   [1]*rlcommon.RateLimitDescriptor
	entries   [4]rlcommon.RateLimitDescriptor_Entry
	entryPtrs [4]*rlcommon.RateLimitDescriptor_Entry
}

// reqDecoder walks a RateLimitRequest: counting (fill false) or filling r.
type reqDecoder struct {
	b    []byte
	s    string // string(b) when filling: every string field is a substring
	fill bool
	r    *rlsv3.RateLimitRequest

	descs     []rlcommon.RateLimitDescriptor
	entries   []rlcommon.RateLimitDescriptor_Entry
	entryPtrs []*rlcommon.RateLimitDescriptor_Entry
	nd, ne    int // descriptors and entries seen so far
}

// field reads the tag at b[i:end].
func (d *reqDecoder) field(i, end int) (protowire.Number, protowire.Type, int, bool) {
	num, typ, n := protowire.ConsumeTag(d.b[i:end])
	return num, typ, i + n, n > 0
}

// varint reads the varint at b[i:end].
func (d *reqDecoder) varint(i, end int) (uint64, int, bool) {
	v, n := protowire.ConsumeVarint(d.b[i:end])
	return v, i + n, n > 0
}

// bytes reads the length-delimited field value at b[i:end] and returns
// where it starts and ends.
func (d *reqDecoder) bytes(i, end int) (start, stop int, ok bool) {
	v, n := protowire.ConsumeBytes(d.b[i:end])
	if n < 0 {
		return 0, 0, false
	}
	stop = i + n
	return stop - len(v), stop, true
}

// str reads the string field value at b[i:end]; not UTF-8 is not ok, as
// proto.Unmarshal rejects it.
func (d *reqDecoder) str(i, end int) (string, int, bool) {
	start, stop, ok := d.bytes(i, end)
	if !ok || !utf8.Valid(d.b[start:stop]) {
		return "", 0, false
	}
	if !d.fill {
		return "", stop, true
	}
	return d.s[start:stop], stop, true
}

func (d *reqDecoder) request() bool {
	end := len(d.b)
	for i := 0; i < end; {
		num, typ, next, ok := d.field(i, end)
		if !ok {
			return false
		}
		switch {
		case num == reqDomain && typ == protowire.BytesType:
			var s string
			if s, i, ok = d.str(next, end); ok && d.fill {
				d.r.Domain = s
			}
		case num == reqDescriptors && typ == protowire.BytesType:
			var start int
			if start, i, ok = d.bytes(next, end); ok {
				ok = d.descriptor(start, i)
			}
		case num == reqHitsAddend && typ == protowire.VarintType:
			var v uint64
			if v, i, ok = d.varint(next, end); ok && d.fill {
				d.r.HitsAddend = uint32(v)
			}
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	return true
}

// descriptor walks the RateLimitDescriptor at b[i:end].
func (d *reqDecoder) descriptor(i, end int) bool {
	var desc *rlcommon.RateLimitDescriptor
	if d.fill {
		desc = &d.descs[d.nd]
		d.r.Descriptors[d.nd] = desc
	}
	d.nd++
	first := d.ne
	seenLimit, seenHits := false, false
	for i < end {
		num, typ, next, ok := d.field(i, end)
		if !ok {
			return false
		}
		switch {
		case num == descEntries && typ == protowire.BytesType:
			var start int
			if start, i, ok = d.bytes(next, end); ok {
				ok = d.entry(start, i)
			}
		case num == descLimit && typ == protowire.BytesType && !seenLimit:
			seenLimit = true
			var start int
			if start, i, ok = d.bytes(next, end); ok {
				var o *rlcommon.RateLimitDescriptor_RateLimitOverride
				if d.fill {
					o = new(rlcommon.RateLimitDescriptor_RateLimitOverride)
					desc.Limit = o
				}
				ok = d.override(start, i, o)
			}
		case num == descHitsAddend && typ == protowire.BytesType && !seenHits:
			seenHits = true
			var start int
			if start, i, ok = d.bytes(next, end); ok {
				var v uint64
				if v, ok = d.wrapper(start, i); ok && d.fill {
					desc.HitsAddend = &wrapperspb.UInt64Value{Value: v}
				}
			}
		case num == descIsNegativeHits && typ == protowire.VarintType:
			var v uint64
			if v, i, ok = d.varint(next, end); ok && d.fill {
				desc.IsNegativeHits = v != 0
			}
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	if d.fill && d.ne > first {
		desc.Entries = d.entryPtrs[first:d.ne:d.ne]
	}
	return true
}

// entry walks the RateLimitDescriptor_Entry at b[i:end].
func (d *reqDecoder) entry(i, end int) bool {
	var e *rlcommon.RateLimitDescriptor_Entry
	if d.fill {
		e = &d.entries[d.ne]
		d.entryPtrs[d.ne] = e
	}
	d.ne++
	for i < end {
		num, typ, next, ok := d.field(i, end)
		if !ok || typ != protowire.BytesType || num != entryKey && num != entryValue {
			return false
		}
		var s string
		if s, i, ok = d.str(next, end); !ok {
			return false
		}
		switch {
		case !d.fill:
		case num == entryKey:
			e.Key = s
		default:
			e.Value = s
		}
	}
	return true
}

// override walks the RateLimitOverride at b[i:end] into o (nil when
// counting).
func (d *reqDecoder) override(i, end int, o *rlcommon.RateLimitDescriptor_RateLimitOverride) bool {
	seenMultiplier := false
	for i < end {
		num, typ, next, ok := d.field(i, end)
		if !ok {
			return false
		}
		var v uint64
		switch {
		case num == overrideRequestsPerUnit && typ == protowire.VarintType:
			if v, i, ok = d.varint(next, end); ok && o != nil {
				o.RequestsPerUnit = uint32(v)
			}
		case num == overrideUnit && typ == protowire.VarintType:
			if v, i, ok = d.varint(next, end); ok && o != nil {
				o.Unit = typev3.RateLimitUnit(int32(v))
			}
		case num == overrideUnitMultiplier && typ == protowire.BytesType && !seenMultiplier:
			seenMultiplier = true
			var start int
			if start, i, ok = d.bytes(next, end); ok {
				if v, ok = d.wrapper(start, i); ok && o != nil {
					o.UnitMultiplier = &wrapperspb.UInt32Value{Value: uint32(v)}
				}
			}
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	return true
}

// wrapper reads the value of the UInt64Value or UInt32Value at b[i:end].
func (d *reqDecoder) wrapper(i, end int) (uint64, bool) {
	var v uint64
	for i < end {
		num, typ, next, ok := d.field(i, end)
		if !ok || num != wrapperValue || typ != protowire.VarintType {
			return 0, false
		}
		if v, i, ok = d.varint(next, end); !ok {
			return 0, false
		}
	}
	return v, true
}
