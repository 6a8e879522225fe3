package envoyxds

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"os"
	"sort"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/yamljson"
)

// testRequest is a request as the test files write it: the request format of descriptor's
// golden files, with an optional name.
type testRequest struct {
	Name            string              `json:"name,omitempty"`
	Method          string              `json:"method"`
	Host            string              `json:"host"`
	Path            string              `json:"path"`
	Headers         map[string][]string `json:"headers,omitempty"`
	RemoteAddress   string              `json:"remote_address,omitempty"`
	DynamicMetadata map[string]any      `json:"dynamic_metadata,omitempty"`
	RouteMetadata   map[string]any      `json:"route_metadata,omitempty"`
	HitsAddend      uint32              `json:"hits_addend,omitempty"`
}

// path returns the path as Envoy hands it to filters: Envoy removes a fragment on receipt,
// so neither filter ever sees one.
func (r *testRequest) path() string {
	p, _, _ := strings.Cut(r.Path, "#")
	return p
}

// headers returns the headers with lower-case names, the values of names that differ only in
// case merged in name order.
func (r *testRequest) headers() map[string][]string {
	names := make([]string, 0, len(r.Headers))
	for k := range r.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	h := make(map[string][]string)
	for _, k := range names {
		lk := strings.ToLower(k)
		h[lk] = append(h[lk], r.Headers[k]...)
	}
	return h
}

func (r *testRequest) descriptorRequest() *descriptor.Request {
	req := &descriptor.Request{
		Method:        r.Method,
		Host:          r.Host,
		Path:          r.path(),
		Headers:       descriptor.HeaderMap(r.headers()),
		RemoteAddress: r.RemoteAddress,
		HitsAddend:    r.HitsAddend,
	}
	if r.DynamicMetadata != nil {
		req.DynamicMetadata = descriptor.Metadata(r.DynamicMetadata)
	}
	if r.RouteMetadata != nil {
		req.RouteMetadata = descriptor.Metadata(r.RouteMetadata)
	}
	return req
}

func (r *testRequest) envoyRequest(t testing.TB) *envoyRequest {
	t.Helper()
	req := &envoyRequest{
		authority: r.Host,
		method:    r.Method,
		path:      r.path(),
		headers:   r.headers(),
		dynamic:   toStructs(t, r.DynamicMetadata),
		hits:      r.HitsAddend,
	}
	// Envoy's downstream address is a socket address: an IP, with a port when it has one.
	if ap, err := netip.ParseAddrPort(r.RemoteAddress); err == nil {
		req.remote = ap.Addr()
	} else if a, err := netip.ParseAddr(r.RemoteAddress); err == nil {
		req.remote = a
	}
	return req
}

// routeMetadata returns the request's route metadata as the metadata of an Envoy route.
func (r *testRequest) routeMetadata(t testing.TB) *corev3.Metadata {
	t.Helper()
	if r.RouteMetadata == nil {
		return nil
	}
	return &corev3.Metadata{FilterMetadata: toStructs(t, r.RouteMetadata)}
}

// toStructs converts namespace -> JSON object metadata into Envoy's protobuf form.
func toStructs(t testing.TB, md map[string]any) map[string]*structpb.Struct {
	t.Helper()
	if md == nil {
		return nil
	}
	out := make(map[string]*structpb.Struct, len(md))
	for ns, v := range md {
		obj, ok := jsonToProto(v).(map[string]any)
		if !ok {
			t.Fatalf("metadata namespace %q holds %T, not an object", ns, v)
		}
		s, err := structpb.NewStruct(obj)
		if err != nil {
			t.Fatalf("metadata namespace %q: %v", ns, err)
		}
		out[ns] = s
	}
	return out
}

// jsonToProto turns json.Number into float64, as a protobuf Struct holds numbers.
func jsonToProto(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
		return f
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = jsonToProto(e)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonToProto(e)
		}
		return out
	}
	return v
}

// decodeStrict decodes JSON with numbers kept exact and unknown fields refused.
func decodeStrict(t testing.TB, file string, data []byte, dst any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

func readFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadConfig reads a PluginConfig from YAML, as the project's tools do.
func loadConfig(t testing.TB, file string) *descriptor.PluginConfig {
	t.Helper()
	return parseConfig(t, file, readFile(t, file))
}

func parseConfig(t testing.TB, name string, yml []byte) *descriptor.PluginConfig {
	t.Helper()
	js, err := yamljson.ToJSON(yml)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	cfg, err := descriptor.Decode(js)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return cfg
}

// wantCalls returns the call descriptor's result stands for: none when the service is not
// called, else one call to the chosen policy's cluster.
func wantCalls(e *descriptor.Engine, res *descriptor.Result) []rlsCall {
	if !res.ShouldCall() {
		return nil
	}
	call := rlsCall{
		Cluster:    e.Policy(res.PolicyIndex).UpstreamCluster,
		Domain:     res.Domain,
		HitsAddend: res.HitsAddend,
	}
	for _, d := range res.Descriptors {
		sd := simDescriptor{Entries: append([]rlsmsg.Entry{}, d.Entries...)}
		if d.Limit != nil {
			o := *d.Limit
			sd.Limit = &o
		}
		if d.HitsAddend != nil {
			n := *d.HitsAddend
			sd.HitsAddend = &n
		}
		call.Descriptors = append(call.Descriptors, sd)
	}
	return []rlsCall{call}
}

// ignoreFilterName compares calls without the name of the filter that made them.
var ignoreFilterName = cmpopts.IgnoreFields(rlsCall{}, "Filter")

// checker compares Envoy with descriptor on requests for one configuration. It translates
// the configuration once per distinct route metadata, which it sets on every route, as a
// proxy's routes would carry it.
type checker struct {
	cfg    *descriptor.PluginConfig
	engine *descriptor.Engine
	outs   map[string]*Output
}

func newChecker(t testing.TB, cfg *descriptor.PluginConfig) *checker {
	t.Helper()
	engine, err := descriptor.Compile(cfg)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return &checker{cfg: cfg, engine: engine, outs: make(map[string]*Output)}
}

// envoy returns what Envoy sends for req.
func (c *checker) envoy(t testing.TB, req *testRequest) []rlsCall {
	t.Helper()
	key, err := json.Marshal(req.RouteMetadata)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := c.outs[string(key)]
	if !ok {
		md := req.routeMetadata(t)
		out, err = Translate(c.cfg, Options{Route: func(policy int, r *routev3.Route) error {
			r.Action = &routev3.Route_Route{Route: DefaultRoute("backend")}
			r.Metadata = md
			return nil
		}})
		if err != nil {
			t.Fatalf("Translate: %v", err)
		}
		c.outs[string(key)] = out
	}
	calls, err := simulate(out, req.envoyRequest(t))
	if err != nil {
		t.Fatalf("simulate(%+v): %v", req, err)
	}
	return calls
}

// check asserts that Envoy, configured by Translate, sends exactly the call descriptor
// makes for req.
func (c *checker) check(t testing.TB, req *testRequest) {
	t.Helper()
	want := wantCalls(c.engine, c.engine.Generate(req.descriptorRequest()))
	got := c.envoy(t, req)
	if diff := cmp.Diff(want, got, ignoreFilterName); diff != "" {
		js, _ := json.Marshal(req)
		t.Errorf("request %s: Envoy's rate-limit calls differ from descriptor's (-descriptor +Envoy):\n%s", js, diff)
	}
}
