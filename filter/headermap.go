package filter

import (
	"encoding/binary"
	"unsafe"
)

// EncodeHeaderMap appends headers in the proxy-wasm header-map serialization: the number of
// pairs, each pair's key and value sizes, then each key and value followed by a NUL, all
// sizes 32-bit little-endian.
func EncodeHeaderMap(b []byte, headers []Header) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(headers)))
	for _, h := range headers {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h.Key)))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(h.Value)))
	}
	for _, h := range headers {
		b = append(b, h.Key...)
		b = append(b, 0)
		b = append(b, h.Value...)
		b = append(b, 0)
	}
	return b
}

// DecodeHeaderMap decodes a serialized header map. The strings share b's memory, which the
// caller must not change afterwards. It reports false on malformed input, trailing bytes
// included.
func DecodeHeaderMap(b []byte) ([]Header, bool) {
	if len(b) == 0 {
		return nil, true
	}
	if len(b) < 4 {
		return nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	if uint64(n)*8 > uint64(len(b)-4) {
		return nil, false
	}
	sizes := b[4 : 4+8*int(n)]
	data := b[4+8*int(n):]
	out := make([]Header, n)
	for i := range out {
		kl := uint64(binary.LittleEndian.Uint32(sizes[8*i:]))
		vl := uint64(binary.LittleEndian.Uint32(sizes[8*i+4:]))
		if kl+vl+2 > uint64(len(data)) || data[kl] != 0 || data[kl+1+vl] != 0 {
			return nil, false
		}
		out[i] = Header{Key: view(data[:kl]), Value: view(data[kl+1 : kl+1+vl])}
		data = data[kl+vl+2:]
	}
	if len(data) != 0 {
		return nil, false
	}
	return out, true
}

// view returns b as a string without copying it.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}
