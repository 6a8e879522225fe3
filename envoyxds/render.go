package envoyxds

import (
	"bytes"
	"encoding/json"
	"fmt"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// marshalOptions writes field names as in Envoy's documentation (snake_case).
var marshalOptions = protojson.MarshalOptions{UseProtoNames: true}

// compact returns m as compact protojson with every insignificant space removed: protojson
// orders fields and map keys deterministically, but varies its whitespace from build to
// build on purpose, so its output must not be compared byte for byte as it is.
func compact(m proto.Message) ([]byte, error) {
	raw, err := marshalOptions.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("envoyxds: marshalling %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, fmt.Errorf("envoyxds: marshalling %s: %w", m.ProtoReflect().Descriptor().FullName(), err)
	}
	return b.Bytes(), nil
}

// indent re-indents compact JSON with two spaces and a final newline.
func indent(compactJSON []byte) []byte {
	var b bytes.Buffer
	_ = json.Indent(&b, compactJSON, "", "  ") // valid JSON: it came from compact
	b.WriteByte('\n')
	return b.Bytes()
}

// Marshal renders m as protojson with Envoy's field names (snake_case), indented with two
// spaces and ending in a newline. The output is the same for the same message, run after run:
// protojson.MarshalOptions{Multiline: true} is deliberately not byte-stable (it varies its
// whitespace between builds), so Marshal writes compact protojson, whose field order (by
// field number) and map-key order (sorted) are deterministic, removes its whitespace and
// re-indents it with encoding/json.
func Marshal(m proto.Message) ([]byte, error) {
	c, err := compact(m)
	if err != nil {
		return nil, err
	}
	return indent(c), nil
}

// MarshalJSON encodes the Envoy configuration of o as one compact JSON object,
// {"route_configuration": {...}, "http_filters": [...]}, each message in protojson with
// Envoy's field names. Caveats are not part of it. The output is deterministic.
func (o *Output) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"route_configuration":`)
	if o.RouteConfiguration == nil {
		b.WriteString("null")
	} else {
		rc, err := compact(o.RouteConfiguration)
		if err != nil {
			return nil, err
		}
		b.Write(rc)
	}
	b.WriteString(`,"http_filters":[`)
	for i, f := range o.HTTPFilters {
		if i > 0 {
			b.WriteByte(',')
		}
		fj, err := compact(f)
		if err != nil {
			return nil, err
		}
		b.Write(fj)
	}
	b.WriteString("]}")
	return b.Bytes(), nil
}

// Render is MarshalJSON indented with two spaces and ending in a newline: the form a CLI
// prints and golden files hold. It is byte-stable across builds (see Marshal).
func (o *Output) Render() ([]byte, error) {
	c, err := o.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return indent(c), nil
}
