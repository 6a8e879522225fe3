package envoyroute

import (
	"math"
	"strconv"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// MaxHitsAddend is the largest cost Envoy takes from a hits_addend format.
const MaxHitsAddend = 1_000_000_000

// populate builds the descriptor of one RateLimit for q on route r, as Envoy's
// RateLimitPolicyEntry does: every action in order appends its entry; one that cannot
// produce it drops the descriptor, and why says which.
func (c *Config) populate(rl *routev3.RateLimit, r *routev3.Route, q *prepared) (d rlsmsg.Descriptor, ok bool, why string) {
	d.Entries = []rlsmsg.Entry{}
	for i, a := range rl.Actions {
		e, produced, reason := c.entry(a, r, q)
		if !produced {
			return d, false, "actions[" + strconv.Itoa(i) + "] " + reason
		}
		if e.Key != "" {
			d.Entries = append(d.Entries, e)
		}
	}
	if h := rl.HitsAddend; h != nil {
		switch {
		case h.Format != "":
			n, valid := hitsFromFormat(h.Format, q)
			if !valid {
				return d, false, "hits_addend " + h.Format + " is not a number from 0 to 1e9"
			}
			d.HitsAddend = &n
		case h.Number != nil:
			n := h.Number.Value
			d.HitsAddend = &n
		}
	}
	if dm := rl.Limit.GetDynamicMetadata(); dm != nil {
		d.Limit = override(lookup(q, dm.MetadataKey.GetKey(), segments(dm.MetadataKey.GetPath())))
	}
	return d, true, ""
}

// entry evaluates one action: the entry (an empty key appends nothing) and whether the
// descriptor can still be built, with the reason when it cannot.
func (c *Config) entry(a *routev3.RateLimit_Action, r *routev3.Route, q *prepared) (rlsmsg.Entry, bool, string) {
	switch s := a.ActionSpecifier.(type) {
	case *routev3.RateLimit_Action_SourceCluster_:
		return rlsmsg.Entry{Key: "source_cluster", Value: c.opts.SourceCluster}, true, ""
	case *routev3.RateLimit_Action_DestinationCluster_:
		ra := r.GetRoute()
		switch {
		case ra.GetCluster() != "":
			return rlsmsg.Entry{Key: "destination_cluster", Value: ra.GetCluster()}, true, ""
		case ra.GetClusterHeader() != "":
			if vs := q.header(ra.GetClusterHeader()); len(vs) > 0 {
				return rlsmsg.Entry{Key: "destination_cluster", Value: vs[0]}, true, ""
			}
			return rlsmsg.Entry{}, false, "(destination_cluster): the cluster header " + ra.GetClusterHeader() + " is absent, Envoy answers 404"
		}
		return rlsmsg.Entry{}, false, "(destination_cluster): the route's cluster is not one rlpkit can tell"
	case *routev3.RateLimit_Action_RequestHeaders_:
		h := s.RequestHeaders
		if vs := q.header(h.HeaderName); len(vs) > 0 {
			return rlsmsg.Entry{Key: h.DescriptorKey, Value: vs[0]}, true, ""
		}
		return rlsmsg.Entry{}, h.SkipIfAbsent, "(request_headers): header " + h.HeaderName + " is absent"
	case *routev3.RateLimit_Action_RemoteAddress_:
		if !q.remote.IsValid() {
			return rlsmsg.Entry{}, false, "(remote_address): the remote address is not an IP"
		}
		return rlsmsg.Entry{Key: "remote_address", Value: q.remote.String()}, true, ""
	case *routev3.RateLimit_Action_MaskedRemoteAddress_:
		return maskedRemote(s.MaskedRemoteAddress, q)
	case *routev3.RateLimit_Action_GenericKey_:
		return rlsmsg.Entry{Key: or(s.GenericKey.DescriptorKey, "generic_key"), Value: s.GenericKey.DescriptorValue}, true, ""
	case *routev3.RateLimit_Action_HeaderValueMatch_:
		h := s.HeaderValueMatch
		return valueMatch(c.headersMatch(h.Headers, q), h.ExpectMatch, rlsmsg.Entry{Key: or(h.DescriptorKey, "header_match"), Value: h.DescriptorValue}, "(header_value_match): the headers ")
	case *routev3.RateLimit_Action_QueryParameters_:
		qp := s.QueryParameters
		if v, ok := q.queryValue(qp.QueryParameterName); ok {
			return rlsmsg.Entry{Key: qp.DescriptorKey, Value: v}, true, ""
		}
		return rlsmsg.Entry{}, qp.SkipIfAbsent, "(query_parameters): query parameter " + qp.QueryParameterName + " is absent"
	case *routev3.RateLimit_Action_QueryParameterValueMatch_:
		m := s.QueryParameterValueMatch
		return valueMatch(c.queryParamsMatch(m.QueryParameters, q), m.ExpectMatch, rlsmsg.Entry{Key: or(m.DescriptorKey, "query_match"), Value: m.DescriptorValue}, "(query_parameter_value_match): the query parameters ")
	case *routev3.RateLimit_Action_DynamicMetadata:
		m := s.DynamicMetadata
		return metadataEntry(m.DescriptorKey, m.DefaultValue, false, lookup(q, m.MetadataKey.GetKey(), segments(m.MetadataKey.GetPath())))
	case *routev3.RateLimit_Action_Metadata:
		m := s.Metadata
		var v any
		if m.Source == routev3.RateLimit_Action_MetaData_ROUTE_ENTRY {
			v = routeMetadata(r, m.MetadataKey.GetKey(), segments(m.MetadataKey.GetPath()))
		} else {
			v = lookup(q, m.MetadataKey.GetKey(), segments(m.MetadataKey.GetPath()))
		}
		return metadataEntry(m.DescriptorKey, m.DefaultValue, m.SkipIfAbsent, v)
	}
	return rlsmsg.Entry{}, false, "is not modelled"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// valueMatch is a header_value_match's or query_parameter_value_match's entry e when
// whether the request matched is what the action expects (expect_match, unset: true);
// else none, and why ("what" followed by how it failed).
func valueMatch(matched bool, expectMatch *wrapperspb.BoolValue, e rlsmsg.Entry, what string) (rlsmsg.Entry, bool, string) {
	expect := expectMatch == nil || expectMatch.Value
	switch {
	case matched == expect:
		return e, true, ""
	case expect:
		return rlsmsg.Entry{}, false, what + "do not match"
	}
	return rlsmsg.Entry{}, false, what + "match, expect_match is false"
}

// maskedRemote is the masked_remote_address entry: the remote address masked to the
// prefix length of its family (32 and 128 by default), written as a CIDR range.
func maskedRemote(m *routev3.RateLimit_Action_MaskedRemoteAddress, q *prepared) (rlsmsg.Entry, bool, string) {
	if !q.remote.IsValid() {
		return rlsmsg.Entry{}, false, "(masked_remote_address): the remote address is not an IP"
	}
	bits := 128
	if l := m.GetV6PrefixMaskLen(); l != nil {
		bits = int(l.GetValue())
	}
	if q.remote.Is4() {
		bits = 32
		if l := m.GetV4PrefixMaskLen(); l != nil {
			bits = int(l.GetValue())
		}
	}
	p, err := q.remote.Prefix(bits)
	if err != nil {
		return rlsmsg.Entry{}, false, "(masked_remote_address): " + err.Error()
	}
	return rlsmsg.Entry{Key: "masked_remote_address", Value: p.String()}, true, ""
}

// metadataEntry is a metadata action's entry: a non-empty string value, else the default
// value, else nothing (the descriptor is dropped unless skip_if_absent).
func metadataEntry(key, def string, skip bool, v any) (rlsmsg.Entry, bool, string) {
	if s, _ := v.(string); s != "" {
		return rlsmsg.Entry{Key: key, Value: s}, true, ""
	}
	if def != "" {
		return rlsmsg.Entry{Key: key, Value: def}, true, ""
	}
	return rlsmsg.Entry{}, skip, "(metadata): no string value for " + key
}

// override follows Envoy's DynamicMetadataRateLimitOverride: a struct with a number
// requests_per_unit and a string unit naming a RateLimitUnit; anything else is none.
func override(v any) *rlsmsg.Override {
	m, _ := v.(map[string]any)
	n, okN := descriptor.MetadataNumber(m["requests_per_unit"])
	u, okU := m["unit"].(string)
	if !okN || !okU {
		return nil
	}
	unit, ok := typev3.RateLimitUnit_value[u]
	if !ok || n < 0 || n >= 1<<32 {
		return nil
	}
	return &rlsmsg.Override{RequestsPerUnit: uint32(n), Unit: rlsmsg.Unit(unit)}
}

// hitsFromFormat evaluates a "%DYNAMIC_METADATA(ns:key...)%" cost as Envoy does: a number,
// or a string holding one, from 0 to 1e9, truncated; anything else is invalid.
func hitsFromFormat(format string, q *prepared) (uint64, bool) {
	parts, _ := metadataFormat(format) // checked
	var f float64
	switch v := lookup(q, parts[0], parts[1:]).(type) {
	case string:
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return 0, false
		}
	default:
		var ok bool
		if f, ok = descriptor.MetadataNumber(v); !ok {
			return 0, false
		}
	}
	if math.IsNaN(f) || f < 0 || f > MaxHitsAddend {
		return 0, false
	}
	return uint64(f), true
}

// lookup reads the request's dynamic metadata.
func lookup(q *prepared, ns string, path []string) any {
	if q.Metadata == nil {
		return nil
	}
	v, _ := q.Metadata.Lookup(ns, path)
	return v
}

// routeMetadata reads the matched route's metadata (filter_metadata).
func routeMetadata(r *routev3.Route, ns string, path []string) any {
	s := r.GetMetadata().GetFilterMetadata()[ns]
	if s == nil {
		return nil
	}
	var v any = s.AsMap()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func segments[S interface{ GetKey() string }](p []S) []string {
	out := make([]string, len(p))
	for i, s := range p {
		out[i] = s.GetKey()
	}
	return out
}
