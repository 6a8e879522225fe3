package envoyxds

// Descriptor building of the Envoy interpreter (see envoysim_test.go).

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	metadatav3 "github.com/envoyproxy/go-control-plane/envoy/type/metadata/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"google.golang.org/protobuf/types/known/structpb"
)

// populate builds the descriptor of one RateLimit, as Envoy's RateLimitPolicy does; ok is
// false when an action cannot produce its entry or the cost is invalid.
func populate(rl *routev3.RateLimit, req *envoyRequest, route *routev3.Route) (d simDescriptor, ok bool, err error) {
	switch {
	case rl.Stage != nil || rl.DisableKey != "":
		return d, false, fmt.Errorf("stage and disable_key are rejected by Envoy in RateLimitPerRoute")
	case rl.ApplyOnStreamDone:
		return d, false, fmt.Errorf("apply_on_stream_done is not modelled")
	}
	d.Entries = []rlsmsg.Entry{}
	for i, a := range rl.Actions {
		e, produced, err := actionEntry(a, req, route)
		if err != nil {
			return d, false, fmt.Errorf("actions[%d]: %w", i, err)
		}
		if !produced {
			return d, false, nil
		}
		if e.Key != "" {
			d.Entries = append(d.Entries, e)
		}
	}
	if h := rl.HitsAddend; h != nil {
		switch {
		case h.IsNegativeHits:
			return d, false, fmt.Errorf("is_negative_hits is not modelled")
		case h.Format != "":
			n, valid, err := formatHits(h.Format, req)
			if err != nil || !valid {
				return d, false, err // an invalid cost drops the descriptor
			}
			d.HitsAddend = &n
		case h.Number != nil:
			n := h.Number.Value
			d.HitsAddend = &n
		}
	}
	if rl.Limit != nil {
		dm := rl.Limit.GetDynamicMetadata()
		if dm == nil {
			return d, false, fmt.Errorf("limit override source %T is not modelled", rl.Limit.OverrideSpecifier)
		}
		o, err := override(lookupMetadata(req.dynamic, dm.MetadataKey))
		if err != nil {
			return d, false, err
		}
		d.Limit = o
	}
	return d, true, nil
}

// actionEntry evaluates one action: the entry (whose empty key means "append nothing") and
// whether the descriptor can still be built.
func actionEntry(a *routev3.RateLimit_Action, req *envoyRequest, route *routev3.Route) (rlsmsg.Entry, bool, error) {
	switch s := a.ActionSpecifier.(type) {
	case *routev3.RateLimit_Action_GenericKey_:
		key := s.GenericKey.DescriptorKey
		if key == "" {
			key = "generic_key"
		}
		return rlsmsg.Entry{Key: key, Value: s.GenericKey.DescriptorValue}, true, nil
	case *routev3.RateLimit_Action_RequestHeaders_:
		vs := req.header(strings.ToLower(s.RequestHeaders.HeaderName))
		if len(vs) == 0 {
			return rlsmsg.Entry{}, s.RequestHeaders.SkipIfAbsent, nil
		}
		return rlsmsg.Entry{Key: s.RequestHeaders.DescriptorKey, Value: vs[0]}, true, nil
	case *routev3.RateLimit_Action_RemoteAddress_:
		if !req.remote.IsValid() {
			return rlsmsg.Entry{}, false, nil
		}
		return rlsmsg.Entry{Key: "remote_address", Value: req.remote.String()}, true, nil
	case *routev3.RateLimit_Action_Metadata:
		m := s.Metadata
		var source map[string]*structpb.Struct
		switch m.Source {
		case routev3.RateLimit_Action_MetaData_DYNAMIC:
			source = req.dynamic
		case routev3.RateLimit_Action_MetaData_ROUTE_ENTRY:
			source = route.GetMetadata().GetFilterMetadata()
		default:
			return rlsmsg.Entry{}, false, fmt.Errorf("metadata source %v is not modelled", m.Source)
		}
		if v := lookupMetadata(source, m.MetadataKey).GetStringValue(); v != "" {
			return rlsmsg.Entry{Key: m.DescriptorKey, Value: v}, true, nil
		}
		if m.DefaultValue != "" {
			return rlsmsg.Entry{Key: m.DescriptorKey, Value: m.DefaultValue}, true, nil
		}
		return rlsmsg.Entry{}, m.SkipIfAbsent, nil
	case *routev3.RateLimit_Action_HeaderValueMatch_:
		h := s.HeaderValueMatch
		expect := h.ExpectMatch == nil || h.ExpectMatch.Value
		matched, err := headersMatch(h.Headers, req)
		if err != nil || matched != expect {
			return rlsmsg.Entry{}, false, err
		}
		key := h.DescriptorKey
		if key == "" {
			key = "header_match"
		}
		return rlsmsg.Entry{Key: key, Value: h.DescriptorValue}, true, nil
	}
	return rlsmsg.Entry{}, false, fmt.Errorf("action %T is not modelled", a.ActionSpecifier)
}

// lookupMetadata follows Envoy's Config::Metadata::metadataValue: the struct of the
// namespace, then one struct field per path segment; nil when anything is missing.
func lookupMetadata(md map[string]*structpb.Struct, key *metadatav3.MetadataKey) *structpb.Value {
	s, ok := md[key.Key]
	if !ok {
		return nil
	}
	var v *structpb.Value
	for i, seg := range key.Path {
		if i > 0 {
			if s = v.GetStructValue(); s == nil {
				return nil
			}
		}
		if v, ok = s.Fields[seg.GetKey()]; !ok {
			return nil
		}
	}
	return v
}

// override follows Envoy's DynamicMetadataRateLimitOverride: a struct with a number
// requests_per_unit and a string unit naming a RateLimitUnit; anything else is no override.
func override(v *structpb.Value) (*rlsmsg.Override, error) {
	fields := v.GetStructValue().GetFields()
	n, okN := fields["requests_per_unit"].GetKind().(*structpb.Value_NumberValue)
	u, okU := fields["unit"].GetKind().(*structpb.Value_StringValue)
	if !okN || !okU {
		return nil, nil
	}
	unit, ok := typev3.RateLimitUnit_value[u.StringValue]
	if !ok {
		return nil, nil
	}
	if f := n.NumberValue; f < 0 || f >= 1<<32 || math.IsNaN(f) {
		return nil, fmt.Errorf("requests_per_unit %v: Envoy's conversion to uint32 is undefined", f)
	}
	return &rlsmsg.Override{RequestsPerUnit: uint32(n.NumberValue), Unit: rlsmsg.Unit(unit)}, nil
}

// formatHits evaluates a hits_addend format of the one form Translate writes,
// "%DYNAMIC_METADATA(namespace:key...)%", as Envoy's RateLimitPolicy does: a number, or a
// string parsed as a number, from 0 to 1e9, truncated; anything else is invalid.
func formatHits(format string, req *envoyRequest) (uint64, bool, error) {
	args, ok := strings.CutPrefix(format, "%DYNAMIC_METADATA(")
	if args, ok = strings.CutSuffix(args, ")%"); !ok || strings.ContainsAny(args, ")%") {
		return 0, false, fmt.Errorf("format %q is not modelled", format)
	}
	parts := strings.Split(args, ":")
	key := &metadatav3.MetadataKey{Key: parts[0]}
	for _, p := range parts[1:] {
		key.Path = append(key.Path, &metadatav3.MetadataKey_PathSegment{Segment: &metadatav3.MetadataKey_PathSegment_Key{Key: p}})
	}
	var f float64
	switch k := lookupMetadata(req.dynamic, key).GetKind().(type) {
	case *structpb.Value_NumberValue:
		f = k.NumberValue
	case *structpb.Value_StringValue:
		// absl::SimpleAtod; strconv.ParseFloat agrees with it on the inputs the tests use.
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(k.StringValue), 64); err != nil {
			return 0, false, nil
		}
	default:
		return 0, false, nil
	}
	if math.IsNaN(f) {
		return 0, false, fmt.Errorf("a NaN cost is undefined in Envoy")
	}
	if f < 0 || f > MaxHitsAddend {
		return 0, false, nil
	}
	return uint64(f), true, nil
}
