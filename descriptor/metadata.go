package descriptor

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

// String returns the reference as "namespace: a.b" for messages.
func (r *metadataRef) String() string {
	s := r.namespace + ": " + strings.Join(r.path, ".")
	if r.source == MetadataRouteEntry {
		s += " (route metadata)"
	}
	return s
}

// lookupMetadata returns the value at ref, or nil.
func lookupMetadata(req *Request, ref *metadataRef) any {
	src := req.DynamicMetadata
	if ref.source == MetadataRouteEntry {
		src = req.RouteMetadata
	}
	if src == nil {
		return nil
	}
	v, _ := src.Lookup(ref.namespace, ref.path)
	return v
}

// readOverride reads a {requests_per_unit, unit} struct, as Envoy's dynamic metadata limit
// override: requests_per_unit must be a number (truncated to an integer, as Envoy does) in
// the uint32 range and unit a name of envoy.type.v3.RateLimitUnit (which has no WEEK);
// anything else attaches nothing.
func readOverride(req *Request, ref *metadataRef) (rlsmsg.Override, bool) {
	obj, ok := lookupMetadata(req, ref).(map[string]any)
	if !ok {
		return rlsmsg.Override{}, false
	}
	n, ok := MetadataNumber(obj["requests_per_unit"])
	if !ok || n < 0 || n > math.MaxUint32 {
		return rlsmsg.Override{}, false
	}
	name, _ := obj["unit"].(string)
	unit, ok := rlsmsg.ParseUnit(name)
	if !ok || unit == rlsmsg.UnitWeek {
		return rlsmsg.Override{}, false
	}
	return rlsmsg.Override{RequestsPerUnit: uint32(n), Unit: unit}, true
}

// readHits reads a cost: a non-negative integer, as a number or a string of digits (Envoy
// formats the metadata value and parses it). Anything else costs 1.
func readHits(req *Request, ref *metadataRef) uint64 {
	switch v := lookupMetadata(req, ref).(type) {
	case string:
		if n, err := strconv.ParseUint(v, 10, 64); err == nil {
			return n
		}
	default:
		if f, ok := MetadataNumber(v); ok && f >= 0 && f == math.Trunc(f) && f < math.MaxUint64 {
			return uint64(f)
		}
	}
	return 1
}

// MetadataNumber returns the number a MetadataLookup value holds: a float64 other than
// NaN, another Go number type, or a json.Number; false for anything else.
func MetadataNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsNaN(n)
	case float32:
		return float64(n), !math.IsNaN(float64(n))
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}
