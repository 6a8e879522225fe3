package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/limit/limitador"
)

// readmeBlock returns the fenced YAML block of docs/serve.md whose first line is
// "# name".
func readmeBlock(t *testing.T, name string) string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "serve.md"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)```yaml\n# " + regexp.QuoteMeta(name) + "\n(.*?)```")
	m := re.FindSubmatch(readme)
	if m == nil {
		t.Fatalf("docs/serve.md has no ```yaml block starting with # %s", name)
	}
	return string(m[1])
}

// validator is what go-control-plane's generated messages implement.
type validator interface{ ValidateAll() error }

// validateAny unpacks a typed_config and validates it: a bootstrap's
// ValidateAll does not look inside Any fields.
func validateAny(t *testing.T, where string, a *anypb.Any) proto.Message {
	t.Helper()
	m, err := a.UnmarshalNew()
	if err != nil {
		t.Fatalf("%s: typed_config %s: %v", where, a.GetTypeUrl(), err)
	}
	if v, ok := m.(validator); ok {
		if err := v.ValidateAll(); err != nil {
			t.Errorf("%s: %s: %v", where, a.GetTypeUrl(), err)
		}
	}
	return m
}

// TestReadmeEnvoyConfig parses the Envoy configuration of docs/serve.md as Envoy's
// bootstrap, validates it and every typed_config in it, and checks that it
// points a rate-limit filter at an HTTP/2 cluster for its limits.
func TestReadmeEnvoyConfig(t *testing.T) {
	js, err := yaml.YAMLToJSON([]byte(readmeBlock(t, "envoy.yaml")))
	if err != nil {
		t.Fatalf("README envoy.yaml: %v", err)
	}
	var bs bootstrapv3.Bootstrap
	if err := protojson.Unmarshal(js, &bs); err != nil {
		t.Fatalf("README envoy.yaml as a Bootstrap: %v", err)
	}
	if err := bs.ValidateAll(); err != nil {
		t.Fatalf("README envoy.yaml: %v", err)
	}
	var filters []*ratelimitv3.RateLimit
	for _, l := range bs.GetStaticResources().GetListeners() {
		for _, fc := range l.GetFilterChains() {
			for _, f := range fc.GetFilters() {
				hcm, ok := validateAny(t, "listener "+l.GetName(), f.GetTypedConfig()).(*hcmv3.HttpConnectionManager)
				if !ok {
					continue
				}
				for _, hf := range hcm.GetHttpFilters() {
					if rl, ok := validateAny(t, "http filter "+hf.GetName(), hf.GetTypedConfig()).(*ratelimitv3.RateLimit); ok {
						filters = append(filters, rl)
					}
				}
			}
		}
	}
	clusters := map[string]bool{} // name: has typed protocol options
	for _, c := range bs.GetStaticResources().GetClusters() {
		for key, opts := range c.GetTypedExtensionProtocolOptions() {
			validateAny(t, "cluster "+c.GetName()+" "+key, opts)
			clusters[c.GetName()] = true
		}
		if _, ok := clusters[c.GetName()]; !ok {
			clusters[c.GetName()] = false
		}
	}
	if len(filters) != 1 {
		t.Fatalf("README envoy.yaml has %d rate-limit filters, want 1", len(filters))
	}
	rl := filters[0]
	cluster := rl.GetRateLimitService().GetGrpcService().GetEnvoyGrpc().GetClusterName()
	// Envoy refuses every API version but V3, which ValidateAll allows.
	if v := rl.GetRateLimitService().GetTransportApiVersion(); v != corev3.ApiVersion_V3 {
		t.Errorf("rate_limit_service.transport_api_version %v, want V3", v)
	}
	if http2, ok := clusters[cluster]; !ok || !http2 {
		t.Errorf("the rate-limit filter's cluster %q: defined %v, with HTTP/2 options %v; want both", cluster, ok, http2)
	}
	limits, err := limitador.DecodeLimits(mustJSON(t, readmeBlock(t, "limits.yaml")))
	if err != nil {
		t.Fatalf("README limits.yaml: %v", err)
	}
	for _, l := range limits {
		if l.Namespace != rl.GetDomain() {
			t.Errorf("README limit %q has namespace %q, want the filter's domain %q", l.Name, l.Namespace, rl.GetDomain())
		}
	}
}

func mustJSON(t *testing.T, y string) []byte {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// TestKubernetesExample parses examples/kubernetes/serve.yaml: a Namespace, a ConfigMap
// whose limits load, a Deployment probing /healthz and /readyz on the HTTP
// port and reading the limits where the ConfigMap is mounted, and a Service.
func TestKubernetesExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "kubernetes", "serve.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	type probe struct {
		HTTPGet struct {
			Path string `json:"path"`
			Port string `json:"port"`
		} `json:"httpGet"`
	}
	type object struct {
		Kind string            `json:"kind"`
		Data map[string]string `json:"data"`
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `json:"args"`
						Env  []struct {
							Name, Value string
						} `json:"env"`
						LivenessProbe  probe `json:"livenessProbe"`
						ReadinessProbe probe `json:"readinessProbe"`
						VolumeMounts   []struct {
							MountPath string `json:"mountPath"`
						} `json:"volumeMounts"`
					} `json:"containers"`
				} `json:"spec"`
			} `json:"template"`
		} `json:"spec"`
	}
	var kinds []string
	for i, doc := range strings.Split(string(data), "\n---\n") {
		var o object
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("serve.yaml document %d: %v", i, err)
		}
		kinds = append(kinds, o.Kind)
		switch o.Kind {
		case "ConfigMap":
			if _, err := limitador.DecodeLimits(mustJSON(t, o.Data["limits.yaml"])); err != nil {
				t.Errorf("ConfigMap limits.yaml: %v", err)
			}
		case "Deployment":
			c := o.Spec.Template.Spec.Containers[0]
			if got := c.LivenessProbe.HTTPGet.Path + " " + c.ReadinessProbe.HTTPGet.Path; got != "/healthz /readyz" {
				t.Errorf("Deployment probes %q, want /healthz /readyz", got)
			}
			env := map[string]string{}
			for _, e := range c.Env {
				env[e.Name] = e.Value
			}
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			o, err := parseServe(c.Args[1:], lookup, nil)
			if err != nil || c.Args[0] != "serve" {
				t.Fatalf("Deployment args %v with env %v: %v", c.Args, env, err)
			}
			if len(c.VolumeMounts) != 1 || filepath.Dir(o.limitsFile) != c.VolumeMounts[0].MountPath {
				t.Errorf("Deployment serves %s, want a file in the mounted ConfigMap %v", o.limitsFile, c.VolumeMounts)
			}
			if o.httpAddr != ":8080" || o.addr != ":8081" {
				t.Errorf("Deployment listens on gRPC %s and HTTP %s, want :8081 and :8080", o.addr, o.httpAddr)
			}
		}
	}
	slices.Sort(kinds)
	if want := []string{"ConfigMap", "Deployment", "Namespace", "Service"}; !slices.Equal(kinds, want) {
		t.Errorf("serve.yaml kinds %v, want %v", kinds, want)
	}
}
