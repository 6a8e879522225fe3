package envoyroute

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/rlpkit/rlpkit/fielderr"
)

// The type URL of the rate-limit filter's configuration.
const rateLimitType = "type.googleapis.com/envoy.extensions.filters.http.ratelimit.v3.RateLimit"

// Shape says which input a JSON document is, by its top-level keys: a RouteConfiguration
// ("virtual_hosts"), the route configuration and HTTP filters package envoyxds renders
// ("route_configuration"), or the output of "rlpkit compile -o envoy" ("gateways" whose
// items have "envoy"); "" for anything else.
func Shape(js []byte) string {
	var top map[string]json.RawMessage
	if json.Unmarshal(js, &top) != nil {
		return ""
	}
	switch {
	case top["route_configuration"] != nil:
		return "envoyxds"
	case top["gateways"] != nil:
		var gws []struct {
			Envoy json.RawMessage `json:"envoy"`
		}
		if json.Unmarshal(top["gateways"], &gws) == nil && len(gws) > 0 && gws[0].Envoy != nil {
			return "compile"
		}
	case top["virtual_hosts"] != nil:
		return "route_configuration"
	}
	return ""
}

// Decode reads one JSON document of any Shape (Envoy's field names, protojson) and
// returns its Config. HTTP filters other than envoy.filters.http.ratelimit, and per-route
// configuration of filters whose type rlpkit does not link, are skipped; unknown fields
// are errors.
func Decode(js []byte, o Options) (*Config, error) { return decode(js, o, "") }

// decode is Decode with the field path of the document within its file, which prefixes
// the field paths of errors.
func decode(js []byte, o Options, at fielderr.Path) (*Config, error) {
	var in struct {
		Gateways []struct {
			Gateway string          `json:"gateway"`
			Envoy   json.RawMessage `json:"envoy"`
		} `json:"gateways"`
		RouteConfiguration json.RawMessage `json:"route_configuration"`
		HTTPFilters        []struct {
			Name        string          `json:"name"`
			TypedConfig json.RawMessage `json:"typed_config"`
		} `json:"http_filters"`
	}
	switch Shape(js) {
	case "compile":
		_ = json.Unmarshal(js, &in)
		var names []string
		var pick json.RawMessage
		for i, g := range in.Gateways {
			names = append(names, g.Gateway)
			if g.Gateway == o.Gateway || o.Gateway == "" && len(in.Gateways) == 1 {
				pick, at = g.Envoy, fielderr.Path("gateways").Index(i).Child("envoy")
			}
		}
		if pick == nil {
			if o.Gateway == "" {
				return nil, fmt.Errorf("envoyroute: the compiled output holds %d Gateways (%s): name the one to test", len(names), strings.Join(names, ", "))
			}
			return nil, fmt.Errorf("envoyroute: no Gateway %s in the compiled output; Gateways there: %s", o.Gateway, strings.Join(names, ", "))
		}
		return decode(pick, o, at)
	case "envoyxds":
		if err := json.Unmarshal(js, &in); err != nil {
			return nil, fmt.Errorf("envoyroute: %w", err)
		}
	case "route_configuration":
		in.RouteConfiguration = js
	default:
		return nil, fmt.Errorf("envoyroute: not a route configuration: want virtual_hosts, route_configuration or the gateways of rlpkit compile -o envoy")
	}
	rcAt := at.Child("route_configuration")
	if Shape(js) == "route_configuration" {
		rcAt = at
	}
	rc := new(routev3.RouteConfiguration)
	if err := unmarshal(in.RouteConfiguration, rc); err != nil {
		if rcAt == "" {
			return nil, fmt.Errorf("envoyroute: %w", err)
		}
		return nil, fmt.Errorf("envoyroute: %s: %w", rcAt, err)
	}
	var filters []Filter
	for i, f := range in.HTTPFilters {
		var t struct {
			Type string `json:"@type"`
		}
		if json.Unmarshal(f.TypedConfig, &t) != nil || t.Type != rateLimitType {
			continue
		}
		a, cfg := new(anypb.Any), new(ratelimitv3.RateLimit)
		err := unmarshal(f.TypedConfig, a)
		if err == nil {
			err = a.UnmarshalTo(cfg)
		}
		if err != nil {
			return nil, fmt.Errorf("envoyroute: http_filters[%d] (%s): %w", i, f.Name, err)
		}
		filters = append(filters, Filter{Name: f.Name, Config: cfg})
	}
	c, err := New(rc, filters, o)
	var list fielderr.List
	if errors.As(err, &list) {
		for _, e := range list {
			base := rcAt
			if strings.HasPrefix(e.Field, "http_filters") {
				base = at
			}
			e.Field = string(join(base, e.Field))
		}
	}
	return c, err
}

// join appends a field path to a base path.
func join(base fielderr.Path, p string) fielderr.Path {
	switch {
	case base == "":
		return fielderr.Path(p)
	case p == "":
		return base
	}
	return base.Child(p)
}

// unmarshal decodes protojson after dropping the typed_per_filter_config entries whose
// type is not linked into the binary (other filters' configuration).
func unmarshal(js []byte, m proto.Message) error {
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		return err
	}
	dropUnknownAny(v)
	clean, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return protojson.Unmarshal(clean, m)
}

// dropUnknownAny removes, under every typed_per_filter_config, the entries whose @type
// the protobuf registry cannot resolve.
func dropUnknownAny(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if k == "typed_per_filter_config" {
				if m, ok := c.(map[string]any); ok {
					for name, a := range m {
						if !resolvable(a) {
							delete(m, name)
						}
					}
				}
			}
			dropUnknownAny(c)
		}
	case []any:
		for _, c := range x {
			dropUnknownAny(c)
		}
	}
}

func resolvable(a any) bool {
	m, _ := a.(map[string]any)
	t, _ := m["@type"].(string)
	if t == "" {
		return true // let protojson report it
	}
	_, err := protoregistry.GlobalTypes.FindMessageByURL(t)
	return err == nil
}
