package descriptor

import (
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

// toystore returns the toystore PluginConfig of the Kuadrant proposal "RateLimitPolicy
// targeting a Gateway resource" scaled to n policies, policy i serving "*.toystore-i.com"
// (and the first also "*.toystore.com").
func toystore(n int) *PluginConfig {
	cfg := &PluginConfig{}
	for i := range n {
		hosts := []string{fmt.Sprintf("*.toystore-%d.com", i)}
		if i == 0 {
			hosts = append(hosts, "*.toystore.com")
		}
		cfg.RateLimitPolicies = append(cfg.RateLimitPolicies, Policy{
			Name:            fmt.Sprintf("default/toystore-%d", i),
			RateLimitDomain: fmt.Sprintf("gw/gw#default/toystore-%d", i),
			UpstreamCluster: "rate-limit-cluster",
			Hostnames:       hosts,
			GatewayActions: []GatewayAction{
				{
					Rules: []Rule{{Paths: []string{"/admin/toy"}, Methods: []string{"POST", "DELETE"}}},
					Configurations: []Configuration{{Actions: []Action{
						{GenericKey: &GenericKey{DescriptorKey: "admin", DescriptorValue: "yes"}},
					}}},
				},
				{Configurations: []Configuration{{Actions: []Action{
					{GenericKey: &GenericKey{DescriptorKey: "vhaction", DescriptorValue: "yes"}},
					{RequestHeaders: &RequestHeaders{HeaderName: "x-user", DescriptorKey: "user", SkipIfAbsent: true}},
				}}}},
			},
		})
	}
	return cfg
}

func mustCompile(t testing.TB, cfg *PluginConfig) *Engine {
	t.Helper()
	e, err := Compile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestGenerateToystore(t *testing.T) {
	e := mustCompile(t, toystore(3))
	req := &Request{Method: "POST", Host: "api.toystore-2.com", Path: "/admin/toy", Headers: HeaderMap{"x-user": {"alice"}}}
	res := e.Generate(req)
	want := []rlsmsg.Descriptor{
		{Entries: []rlsmsg.Entry{{Key: "admin", Value: "yes"}}},
		{Entries: []rlsmsg.Entry{{Key: "vhaction", Value: "yes"}, {Key: "user", Value: "alice"}}},
	}
	if res.PolicyIndex != 2 || res.Domain != "gw/gw#default/toystore-2" || !res.ShouldCall() {
		t.Errorf("Generate = policy %d domain %q, want policy 2 domain gw/gw#default/toystore-2", res.PolicyIndex, res.Domain)
	}
	if diff := cmp.Diff(want, res.Descriptors); diff != "" {
		t.Errorf("Descriptors (-want +got):\n%s", diff)
	}
}

// TestGenerateIntoReuseIsIndependent checks that a reused Result never shows a previous
// request's data, whichever policy served it.
func TestGenerateIntoReuseIsIndependent(t *testing.T) {
	e := mustCompile(t, toystore(2))
	var res Result
	e.GenerateInto(&Request{Method: "POST", Host: "a.toystore-1.com", Path: "/admin/toy", Headers: HeaderMap{"x-user": {"bob"}}}, &res)
	e.GenerateInto(&Request{Method: "GET", Host: "a.toystore-0.com", Path: "/"}, &res)
	want := []rlsmsg.Descriptor{{Entries: []rlsmsg.Entry{{Key: "vhaction", Value: "yes"}}}}
	if diff := cmp.Diff(want, res.Descriptors); diff != "" {
		t.Errorf("Descriptors after reuse (-want +got):\n%s", diff)
	}
	e.GenerateInto(&Request{Method: "GET", Host: "nowhere.example", Path: "/"}, &res)
	if res.PolicyIndex != -1 || res.Policy != "" || res.Domain != "" || len(res.Descriptors) != 0 || res.ShouldCall() {
		t.Errorf("GenerateInto(no policy) = %+v, want an empty result", res)
	}
}

func TestGenerateAllocations(t *testing.T) {
	e := mustCompile(t, toystore(1000))
	req := &Request{Method: "POST", Host: "api.toystore-500.com:443", Path: "/admin/toy?x=1", Headers: HeaderMap{"x-user": {"alice"}}}
	var res Result
	e.GenerateInto(req, &res)
	if got := testing.AllocsPerRun(100, func() { e.GenerateInto(req, &res) }); got != 0 {
		t.Errorf("GenerateInto with a reused Result: %v allocations, want 0", got)
	}
	if got := testing.AllocsPerRun(100, func() { e.Generate(req) }); got > 1 {
		t.Errorf("Generate: %v allocations, want at most 1", got)
	}
	// Overrides and costs from metadata live in the Result's own storage too.
	meta := mustCompile(t, &PluginConfig{RateLimitPolicies: []Policy{{
		RateLimitDomain: "d", UpstreamCluster: "c", Hostnames: []string{"*"},
		GatewayActions: []GatewayAction{{Configurations: []Configuration{{
			Actions:    []Action{{RemoteAddress: &RemoteAddress{}}},
			Limit:      &LimitOverride{DynamicMetadata: &DynamicMetadataSource{MetadataKey: MetadataKey{Key: "ns", Path: []PathSegment{{"limit"}}}}},
			HitsAddend: &HitsAddend{DynamicMetadata: &DynamicMetadataSource{MetadataKey: MetadataKey{Key: "ns", Path: []PathSegment{{"cost"}}}}},
		}}}},
	}}})
	mreq := &Request{Host: "x", RemoteAddress: "192.0.2.1:80", DynamicMetadata: Metadata{"ns": map[string]any{
		"limit": map[string]any{"requests_per_unit": 10.0, "unit": "SECOND"}, "cost": 3.0,
	}}}
	meta.GenerateInto(mreq, &res)
	if got := testing.AllocsPerRun(100, func() { meta.GenerateInto(mreq, &res) }); got != 0 {
		t.Errorf("GenerateInto with override and cost: %v allocations, want 0", got)
	}
	if d := res.Descriptors[0]; d.Limit == nil || *d.Limit != (rlsmsg.Override{RequestsPerUnit: 10, Unit: rlsmsg.UnitSecond}) || d.HitsAddend == nil || *d.HitsAddend != 3 {
		t.Errorf("descriptor = %+v, want limit 10/SECOND and hits_addend 3", d)
	}
}

// TestEngineConcurrent shares one Engine between goroutines (run with -race).
func TestEngineConcurrent(t *testing.T) {
	e := mustCompile(t, toystore(10))
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var res Result
			for i := range 500 {
				host := fmt.Sprintf("a.toystore-%d.com", (g+i)%10)
				e.GenerateInto(&Request{Method: "DELETE", Host: host, Path: "/admin/toy"}, &res)
				if len(res.Descriptors) != 2 || res.PolicyIndex != (g+i)%10 {
					t.Errorf("host %s: policy %d with %d descriptors, want policy %d with 2", host, res.PolicyIndex, len(res.Descriptors), (g+i)%10)
					return
				}
			}
		}()
	}
	wg.Wait()
}
