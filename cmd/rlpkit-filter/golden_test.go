package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rlsv3 "github.com/envoyproxy/go-control-plane/envoy/service/ratelimit/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/rlsmsg"
	"github.com/rlpkit/rlpkit/yamljson"
)

// goldenRequest is a request of descriptor's golden files.
type goldenRequest struct {
	Method          string              `json:"method"`
	Host            string              `json:"host"`
	Path            string              `json:"path"`
	Headers         map[string][]string `json:"headers"`
	RemoteAddress   string              `json:"remote_address"`
	DynamicMetadata map[string]any      `json:"dynamic_metadata"`
	RouteMetadata   map[string]any      `json:"route_metadata"`
	HitsAddend      uint32              `json:"hits_addend"`
}

// goldenResult is the result part of a golden want file, as package descriptor printed it.
type goldenResult struct {
	Result struct {
		Policy      *string            `json:"policy"`
		Domain      string             `json:"domain"`
		Descriptors []goldenDescriptor `json:"descriptors"`
		HitsAddend  uint32             `json:"hits_addend"`
	} `json:"result"`
	Explain json.RawMessage `json:"explain"`
}

// goldenDescriptor is a descriptor as the golden files print it.
type goldenDescriptor struct {
	Entries []rlsmsg.Entry `json:"entries"`
	Limit   *struct {
		RequestsPerUnit uint32 `json:"requests_per_unit"`
		Unit            string `json:"unit"`
	} `json:"limit"`
	HitsAddend *uint64 `json:"hits_addend"`
}

// TestGoldenRequests sends every golden request of package descriptor
// (descriptor/testdata/generate) through the module and checks that the RateLimitRequest
// reaching the service carries the domain and descriptors the package generated. The one
// expected difference: the request-level hits_addend, which Envoy keeps in filter state that
// proxy-wasm cannot read, is never sent.
func TestGoldenRequests(t *testing.T) {
	cases, err := filepath.Glob(filepath.Join("..", "..", "descriptor", "testdata", "generate", "*"))
	if err != nil || len(cases) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	var mu sync.Mutex
	var got []*rlsv3.RateLimitRequest
	rec := serve(t, &fakeRLS{fn: func(_ context.Context, req *rlsv3.RateLimitRequest) (*rlsv3.RateLimitResponse, error) {
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		return &rlsv3.RateLimitResponse{OverallCode: rlsv3.RateLimitResponse_OK}, nil
	}})
	total := 0
	for _, dir := range cases {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cfgYAML, err := os.ReadFile(filepath.Join(dir, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			cfgJSON, err := yamljson.ToJSON(cfgYAML)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := descriptor.Decode(cfgJSON)
			if err != nil {
				t.Fatal(err)
			}
			var opts []hostOption
			for _, p := range cfg.RateLimitPolicies {
				opts = append(opts, withCluster(p.UpstreamCluster, rec))
			}
			h, ok := newHost(t, module, withTimeout(t, cfgJSON), opts...)
			if !ok {
				t.Fatalf("proxy_on_configure failed:\n%s", h.dump())
			}
			reqs, _ := filepath.Glob(filepath.Join(dir, "*.request.json"))
			for _, reqFile := range reqs {
				name := strings.TrimSuffix(filepath.Base(reqFile), ".request.json")
				t.Run(name, func(t *testing.T) {
					total++
					var g goldenRequest
					readJSON(t, reqFile, &g)
					var want goldenResult
					readJSON(t, filepath.Join(dir, name+".want.json"), &want)
					headers, props := goldenToEnvoy(t, &g)
					mu.Lock()
					got = got[:0]
					mu.Unlock()
					s := h.request(headers, props)
					if len(want.Result.Descriptors) == 0 {
						if s.action != statusContinue || len(h.calls) != 0 {
							t.Fatalf("no descriptors: action %d with %d calls, want Continue and no call", s.action, len(h.calls))
						}
						return
					}
					h.deliver(h.next())
					if o := outcome(t, s); o != "continue" {
						t.Fatalf("outcome %s, want continue", o)
					}
					mu.Lock()
					defer mu.Unlock()
					if len(got) != 1 {
						t.Fatalf("the service saw %d requests, want 1", len(got))
					}
					if got[0].GetHitsAddend() != 0 {
						t.Errorf("request hits_addend = %d, want 0 (not readable through proxy-wasm)", got[0].GetHitsAddend())
					}
					if diff := cmp.Diff(want.Result.Domain, got[0].GetDomain()); diff != "" {
						t.Errorf("domain (-package +module):\n%s", diff)
					}
					if diff := cmp.Diff(want.Result.Descriptors, fromRLS(got[0])); diff != "" {
						t.Errorf("descriptors (-package +module):\n%s", diff)
					}
				})
			}
		})
	}
	if total == 0 {
		t.Fatal("no golden requests")
	}
}

func readJSON(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
}

// goldenToEnvoy presents a golden request as Envoy does: pseudo-headers, lower-case header
// names with one pair per value, the client address and metadata as properties.
func goldenToEnvoy(t *testing.T, g *goldenRequest) ([][2]string, map[string][]byte) {
	t.Helper()
	hs := [][2]string{{":authority", g.Host}, {":path", g.Path}, {":method", g.Method}}
	for k, vs := range g.Headers {
		for _, v := range vs {
			hs = append(hs, [2]string{strings.ToLower(k), v})
		}
	}
	props := map[string][]byte{}
	if g.RemoteAddress != "" {
		props["source\x00address"] = []byte(g.RemoteAddress)
	}
	if g.DynamicMetadata != nil {
		props["metadata"] = metadataBytes(t, g.DynamicMetadata)
	}
	if g.RouteMetadata != nil {
		props["xds\x00route_metadata"] = metadataBytes(t, g.RouteMetadata)
	}
	return hs, props
}

// metadataBytes serializes namespace -> struct as an envoy.config.core.v3.Metadata.
func metadataBytes(t *testing.T, md map[string]any) []byte {
	t.Helper()
	out := &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{}}
	for ns, v := range md {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("metadata namespace %q is not an object", ns)
		}
		st, err := structpb.NewStruct(m)
		if err != nil {
			t.Fatal(err)
		}
		out.FilterMetadata[ns] = st
	}
	b, err := proto.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fromRLS converts the descriptors the service received into the golden files' form.
func fromRLS(req *rlsv3.RateLimitRequest) []goldenDescriptor {
	var out []goldenDescriptor
	for _, d := range req.GetDescriptors() {
		var dd goldenDescriptor
		for _, e := range d.GetEntries() {
			dd.Entries = append(dd.Entries, rlsmsg.Entry{Key: e.GetKey(), Value: e.GetValue()})
		}
		if l := d.GetLimit(); l != nil {
			dd.Limit = &struct {
				RequestsPerUnit uint32 `json:"requests_per_unit"`
				Unit            string `json:"unit"`
			}{l.GetRequestsPerUnit(), rlsmsg.Unit(l.GetUnit()).String()}
		}
		if ha := d.GetHitsAddend(); ha != nil {
			v := ha.GetValue()
			dd.HitsAddend = &v
		}
		out = append(out, dd)
	}
	return out
}
