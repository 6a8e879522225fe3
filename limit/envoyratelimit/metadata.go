package envoyratelimit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rlpkit/rlpkit/limit"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// metadata fills res.DynamicMetadata when Options.DynamicMetadata is set,
// with the fields the reference writes (its ratelimitToMetadata):
//
//	domain       the request's domain
//	descriptors  one struct per request descriptor: entries, a list of
//	             "key=value" strings; limit, the override in protobuf's
//	             text format, when there is one; hitsAddend, the
//	             descriptor's own hits_addend, when it is set (even to 0)
//	hitsAddend   the request's hits_addend, when it is not 0
//	metadata     the metadata of the rules matched by the descriptors that
//	             passed (neither unlimited nor answered OVER_LIMIT), merged
//	             in request order: a key already set is kept, unless both
//	             values are maps, which are merged the same way; left out
//	             when empty
//
// items are the request's counter updates (nil when nothing matched).
func (e *Evaluator) metadata(res *limit.Result, req *rlsmsg.Request, items []item, unlimited []bool) error {
	if !e.o.DynamicMetadata {
		return nil
	}
	descs := make([]any, len(req.Descriptors))
	for i := range req.Descriptors {
		descs[i] = descriptorMetadata(&req.Descriptors[i])
	}
	fields := map[string]any{"domain": req.Domain, "descriptors": descs}
	if req.HitsAddend != 0 {
		fields["hitsAddend"] = float64(req.HitsAddend)
	}
	var passed map[string]any
	last := -1
	for _, it := range items {
		if it.desc == last || it.node == nil || len(it.node.Metadata) == 0 {
			continue
		}
		last = it.desc
		if unlimited[it.desc] || res.Statuses[it.desc].Code == rlsmsg.CodeOverLimit {
			continue
		}
		if passed == nil {
			passed = map[string]any{}
		}
		mergeMetadata(passed, it.node.Metadata)
	}
	if len(passed) > 0 {
		fields["metadata"] = passed
	}
	b, err := rlsmsg.AppendStruct(nil, fields)
	if err != nil {
		// A request's strings are UTF-8 (the codec checks them) and a
		// rule's metadata was checked when it was loaded.
		return &limit.InvalidRequestError{Problems: []string{"dynamic metadata: " + err.Error()}}
	}
	res.DynamicMetadata = b
	return nil
}

// descriptorMetadata is one descriptor's struct in the dynamic metadata.
func descriptorMetadata(d *rlsmsg.Descriptor) map[string]any {
	entries := make([]any, len(d.Entries))
	for j, en := range d.Entries {
		entries[j] = en.Key + "=" + en.Value
	}
	f := map[string]any{"entries": entries}
	if d.Limit != nil {
		f["limit"] = overrideText(d.Limit)
	}
	if d.HitsAddend != nil {
		f["hitsAddend"] = float64(*d.HitsAddend)
	}
	return f
}

// overrideText writes a limit override as protobuf-go writes a
// RateLimitOverride's String(): fields in number order, zero ones left
// out, separated by one space ("requests_per_unit:10 unit:MINUTE").
func overrideText(o *rlsmsg.Override) string {
	var parts []string
	if o.RequestsPerUnit != 0 {
		parts = append(parts, "requests_per_unit:"+strconv.FormatUint(uint64(o.RequestsPerUnit), 10))
	}
	switch {
	case o.Unit == 0:
	case o.Unit >= rlsmsg.UnitSecond && o.Unit <= rlsmsg.UnitYear:
		// envoy.type.v3.RateLimitUnit, the override's enum, ends at YEAR.
		parts = append(parts, "unit:"+o.Unit.String())
	default:
		parts = append(parts, "unit:"+strconv.Itoa(int(o.Unit)))
	}
	if m := o.UnitMultiplier; m != nil {
		if *m == 0 {
			parts = append(parts, "unit_multiplier:{}")
		} else {
			parts = append(parts, fmt.Sprintf("unit_multiplier:{value:%d}", *m))
		}
	}
	return strings.Join(parts, " ")
}

// mergeMetadata merges src into dst: a key dst has is kept, unless both
// values are maps, merged the same way; a map taken from src is copied, so
// that later merges never change a rule's own metadata.
func mergeMetadata(dst, src map[string]any) {
	for k, v := range src {
		if have, ok := dst[k]; ok {
			hm, ok1 := have.(map[string]any)
			sm, ok2 := v.(map[string]any)
			if ok1 && ok2 {
				mergeMetadata(hm, sm)
			}
			continue
		}
		if sm, ok := v.(map[string]any); ok {
			cp := make(map[string]any, len(sm))
			mergeMetadata(cp, sm)
			v = cp
		}
		dst[k] = v
	}
}

// normalizeMetadata returns v with every map keyed by strings (a YAML
// mapping with other keys decodes as map[any]any; the reference writes
// such keys with %v), for rlsmsg.AppendStruct.
func normalizeMetadata(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalizeMetadata(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprintf("%v", k)] = normalizeMetadata(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = normalizeMetadata(e)
		}
		return v
	}
	return v
}
