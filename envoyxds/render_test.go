package envoyxds

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"
)

// TestRenderRoundTrip checks that Render's output reads back, with protojson, into the same
// messages, and that rendering again gives the same bytes.
func TestRenderRoundTrip(t *testing.T) {
	for _, dir := range goldenCases(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			out, err := Translate(loadConfig(t, filepath.Join(dir, "input.yaml")), Options{})
			if err != nil {
				t.Fatal(err)
			}
			first, err := out.Render()
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				RouteConfiguration json.RawMessage   `json:"route_configuration"`
				HTTPFilters        []json.RawMessage `json:"http_filters"`
			}
			if err := json.Unmarshal(first, &doc); err != nil {
				t.Fatalf("Render() is not JSON: %v", err)
			}
			rc := new(routev3.RouteConfiguration)
			if err := protojson.Unmarshal(doc.RouteConfiguration, rc); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(out.RouteConfiguration, rc, protocmp.Transform()); diff != "" {
				t.Errorf("route_configuration read back differs (-want +got):\n%s", diff)
			}
			if len(doc.HTTPFilters) != len(out.HTTPFilters) {
				t.Fatalf("Render() has %d filters, want %d", len(doc.HTTPFilters), len(out.HTTPFilters))
			}
			for i, raw := range doc.HTTPFilters {
				f := new(hcmv3.HttpFilter)
				if err := protojson.Unmarshal(raw, f); err != nil {
					t.Fatal(err)
				}
				if !proto.Equal(f, out.HTTPFilters[i]) {
					t.Errorf("http_filters[%d] read back = %v, want %v", i, f, out.HTTPFilters[i])
				}
			}
			again, err := Translate(loadConfig(t, filepath.Join(dir, "input.yaml")), Options{})
			if err != nil {
				t.Fatal(err)
			}
			second, err := again.Render()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first, second) {
				t.Error("two translations of the same input render differently")
			}
		})
	}
}

// TestMarshal checks the layout of one rendered message: Envoy's field names, two-space
// indentation, a final newline.
func TestMarshal(t *testing.T) {
	got, err := Marshal(&routev3.RouteMatch{
		PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/api/"},
		Headers:       []*routev3.HeaderMatcher{{Name: ":method", HeaderMatchSpecifier: stringMatch(exact("GET"))}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "prefix": "/api/",
  "headers": [
    {
      "name": ":method",
      "string_match": {
        "exact": "GET"
      }
    }
  ]
}
`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Marshal() (-want +got):\n%s", diff)
	}
}

func TestMarshalJSONWithoutRouteConfiguration(t *testing.T) {
	got, err := (&Output{}).MarshalJSON()
	if err != nil || string(got) != `{"route_configuration":null,"http_filters":[]}` {
		t.Errorf("Output{}.MarshalJSON() = %s, %v", got, err)
	}
}
