package fromhttp

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
)

// toystore is the Kuadrant proposal's toystore PluginConfig with a request-header action.
func toystore() *descriptor.PluginConfig {
	return &descriptor.PluginConfig{RateLimitPolicies: []descriptor.Policy{{
		Name:            "default/toystore",
		RateLimitDomain: "toystore-app",
		UpstreamCluster: "rate-limit-cluster",
		Hostnames:       []string{"*.toystore.com"},
		GatewayActions: []descriptor.GatewayAction{
			{
				Rules: []descriptor.Rule{{Paths: []string{"/admin/toy"}, Methods: []string{"POST", "DELETE"}}},
				Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{
					{GenericKey: &descriptor.GenericKey{DescriptorKey: "admin", DescriptorValue: "yes"}},
				}}},
			},
			{Configurations: []descriptor.Configuration{{Actions: []descriptor.Action{
				{GenericKey: &descriptor.GenericKey{DescriptorKey: "vhaction", DescriptorValue: "yes"}},
				{RequestHeaders: &descriptor.RequestHeaders{HeaderName: "x-user", DescriptorKey: "user", SkipIfAbsent: true}},
			}}}},
		},
	}}}
}

func TestRequest(t *testing.T) {
	e, err := descriptor.Compile(toystore())
	if err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("DELETE", "http://shop.toystore.com:8080/admin/toy?force=1", nil)
	r.Header.Set("X-User", "carol")
	r.RemoteAddr = "198.51.100.4:41000"
	req := Request(r)
	if req.Path != "/admin/toy?force=1" || req.Host != "shop.toystore.com:8080" || req.RemoteAddress != "198.51.100.4:41000" {
		t.Errorf("Request = %+v", req)
	}
	res := e.Generate(&req)
	got, _ := json.Marshal(res)
	want := `{"policy":"default/toystore","domain":"toystore-app","descriptors":[{"entries":[{"key":"admin","value":"yes"}]},{"entries":[{"key":"vhaction","value":"yes"},{"key":"user","value":"carol"}]}],"hits_addend":0}`
	if string(got) != want {
		t.Errorf("Generate(Request) = %s, want %s", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { req.Headers.Get("x-user") }); n != 0 {
		t.Errorf("Headers.Get: %v allocations, want 0", n)
	}
}

func TestHeaders(t *testing.T) {
	h := Headers{"X-Api-Key": {"k1", "k2"}, "Content-Type": {"json"}}
	tests := []struct {
		name   string
		want   string
		wantOK bool
	}{
		{"x-api-key", "k1", true},
		{"content-type", "json", true},
		{"x-missing", "", false},
	}
	for _, tc := range tests {
		got, ok := h.Get(tc.name)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("Get(%q) = %q, %v, want %q, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
	long := "x-" + string(make([]byte, 0)) + "a-very-long-header-name-that-does-not-fit-the-stack-buffer-of-sixty-four"
	h["X-A-Very-Long-Header-Name-That-Does-Not-Fit-The-Stack-Buffer-Of-Sixty-Four"] = []string{"v"}
	if got, ok := h.Get(long); !ok || got != "v" {
		t.Errorf("Get(%q) = %q, %v, want v, true", long, got, ok)
	}
}
