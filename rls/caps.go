package rls

import (
	"fmt"
	"math"
	"strings"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// The defaults of RequestCaps: above what any real configuration sends
// (Envoy Gateway, for one, allows 256 rules per policy, one descriptor
// each), well below what would let one request stall a server.
const (
	DefaultMaxDescriptors = 1024
	DefaultMaxEntries     = 64
	DefaultMaxKeyBytes    = 256 << 10
)

// RequestCaps bound the size of one request. A request over a cap is
// refused before it is evaluated, as an invalid request (the Conventions'
// InvalidRequest code) whose message names the cap, the request's figure
// and, from Conventions.CapSettings, the setting that raises it. The codec
// stops decoding at the field that passes the cap (rlsmsg.Caps), so that a
// refusal costs a pass over the request's bytes, not the evaluation of its
// descriptors.
//
// A field of 0 or less means its default. There is no unbounded setting: a
// program that wants practically none sets math.MaxInt32, which also lifts
// MaxRecvMsgSize to its largest.
type RequestCaps struct {
	// MaxDescriptors bounds a request's descriptors (default 1,024).
	MaxDescriptors int
	// MaxEntries bounds the entries of each descriptor (default 64).
	MaxEntries int
	// MaxKeyBytes bounds the bytes of a request's domain and of all its
	// entries' keys and values, together (default 256 KiB).
	MaxKeyBytes int
}

// CapSettings name what raises each of RequestCaps in a server, for the
// message refusing a request over a cap: a flag such as
// "--max-descriptors" or an environment variable. An empty name is left out
// of the message.
type CapSettings struct {
	// MaxDescriptors names what raises RequestCaps.MaxDescriptors.
	MaxDescriptors string
	// MaxEntries names what raises RequestCaps.MaxEntries.
	MaxEntries string
	// MaxKeyBytes names what raises RequestCaps.MaxKeyBytes.
	MaxKeyBytes string
}

// withDefaults returns c with the default in place of every field of 0 or
// less.
func (c RequestCaps) withDefaults() RequestCaps {
	if c.MaxDescriptors <= 0 {
		c.MaxDescriptors = DefaultMaxDescriptors
	}
	if c.MaxEntries <= 0 {
		c.MaxEntries = DefaultMaxEntries
	}
	if c.MaxKeyBytes <= 0 {
		c.MaxKeyBytes = DefaultMaxKeyBytes
	}
	return c
}

// Framing allowances of MaxRecvMsgSize: the most bytes protobuf spends on
// the tags and lengths of one entry (the entry, its key and its value, a
// tag and a length of up to 4 bytes each), on one descriptor besides its
// entries (its tag and length, a limit override with every field, a
// hits_addend and is_negative_hits), and on the request besides its
// descriptors (the domain's tag and length, hits_addend).
const (
	entryFraming      = 16
	descriptorFraming = 64
	requestFraming    = 64
)

// maxMsgSize is the largest receive limit MaxRecvMsgSize gives.
const maxMsgSize = math.MaxInt32

// MaxRecvMsgSize returns the gRPC receive-size limit that matches c (its
// defaults in place of fields of 0 or less), for grpc.MaxRecvMsgSize:
//
//	MaxKeyBytes + 64·MaxDescriptors + 16·MaxDescriptors·MaxEntries + 64
//
// bytes, at most math.MaxInt32: the longest a request within every cap is
// when each field is written once, as proto.Marshal and Envoy write it.
// That is 1,376,320 bytes (about 1.3 MiB) with the defaults. A longer
// message, which only repeated or unknown fields make, is refused by gRPC
// with ResourceExhausted before it is decoded.
func (c RequestCaps) MaxRecvMsgSize() int {
	c = c.withDefaults()
	n := satAdd(c.MaxKeyBytes, satMul(descriptorFraming, c.MaxDescriptors))
	n = satAdd(n, satMul(entryFraming, satMul(c.MaxDescriptors, c.MaxEntries)))
	return satAdd(n, requestFraming)
}

// maxJSONBody is the bound on a POST /json body matching c: every request
// within the caps in protobuf's JSON mapping without white space, each
// byte of its strings escaped (\u0000: 6 bytes), with 32 bytes of syntax
// per entry, 256 per descriptor and 1 KiB for the request.
func (c RequestCaps) maxJSONBody() int {
	c = c.withDefaults()
	n := satAdd(satMul(6, c.MaxKeyBytes), satMul(256, c.MaxDescriptors))
	n = satAdd(n, satMul(32, satMul(c.MaxDescriptors, c.MaxEntries)))
	return satAdd(n, 1024)
}

// decoderCaps are c as the codec's.
func (c RequestCaps) decoderCaps() rlsmsg.Caps {
	return rlsmsg.Caps{MaxDescriptors: c.MaxDescriptors, MaxEntries: c.MaxEntries, MaxKeyBytes: c.MaxKeyBytes}
}

// satMul and satAdd compute sizes from non-negative operands, saturating
// at maxMsgSize.
func satMul(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a > maxMsgSize/b {
		return maxMsgSize
	}
	return a * b
}

func satAdd(a, b int) int {
	if a > maxMsgSize-b {
		return maxMsgSize
	}
	return a + b
}

// overCap is the invalid request of a request over a cap, such as
// "descriptors: 1025, over the cap of 1024 per request (raise it with
// --max-descriptors)".
func (s *Service) overCap(e *rlsmsg.CapError) error {
	names := &s.conv.CapSettings
	var what, per, name string
	switch e.Cap {
	case rlsmsg.CapDescriptors:
		per, name = "per request", names.MaxDescriptors
	case rlsmsg.CapEntries:
		per, name = "per descriptor", names.MaxEntries
	default:
		what, per, name = " bytes of keys and values", "per request", names.MaxKeyBytes
	}
	p := fmt.Sprintf("%s: %d%s, over the cap of %d %s", e.Field(), e.Got, what, e.Max, per)
	if name != "" {
		p += " (raise it with " + name + ")"
	}
	return &limit.InvalidRequestError{Problems: []string{p}}
}

// capNames lists the settings of every cap that has one, for messages
// about them all ("--max-descriptors, --max-entries, --max-key-bytes").
func (s *Service) capNames() string {
	var names []string
	for _, n := range []string{s.conv.CapSettings.MaxDescriptors, s.conv.CapSettings.MaxEntries, s.conv.CapSettings.MaxKeyBytes} {
		if n != "" {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
