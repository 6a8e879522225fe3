package policyapi

import (
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
)

// Each proxy's view of a request carries every field it reads.
func TestRequestConversions(t *testing.T) {
	md := descriptor.Metadata{"ns": map[string]any{"k": "v"}}
	r := &Request{Method: "POST", Scheme: "https", Host: "api.example.com:8443", Path: "/a?b=1",
		Headers: map[string][]string{"x-user": {"u1"}}, RemoteAddress: "203.0.113.7:5000", Metadata: md, HitsAddend: 3,
		Auth: map[string]any{"identity": "u1"}}
	d := r.Descriptor()
	if d.Method != "POST" || d.Host != r.Host || d.Path != r.Path || d.RemoteAddress != r.RemoteAddress || d.HitsAddend != 3 || d.DynamicMetadata == nil {
		t.Errorf("Descriptor() = %+v", d)
	}
	if v, ok := d.Headers.Get("x-user"); !ok || v != "u1" {
		t.Errorf("Descriptor().Headers x-user = %q, %v", v, ok)
	}
	w := r.WasmShim()
	if w.Method != "POST" || w.Scheme != "https" || w.Host != r.Host || w.Path != r.Path || w.SourceAddress != r.RemoteAddress || w.Auth["identity"] != "u1" || w.Headers["x-user"][0] != "u1" {
		t.Errorf("WasmShim() = %+v", w)
	}
	e := r.EnvoyRoute()
	if e.Method != "POST" || e.Scheme != "https" || e.Authority != r.Host || e.Path != r.Path || e.RemoteAddress != r.RemoteAddress || e.HitsAddend != 3 || e.Metadata == nil {
		t.Errorf("EnvoyRoute() = %+v", e)
	}
	if d := (&Request{}).Descriptor(); d.DynamicMetadata != nil {
		t.Errorf("no metadata: Descriptor().DynamicMetadata = %v, want nil", d.DynamicMetadata)
	}
}

// A name not found says the likely misspelling, else what there is.
func TestNotFound(t *testing.T) {
	names := []string{"shop/storefront", "shop/api", "infra/edge"}
	for _, tc := range []struct{ kind, name, want string }{
		{"HTTPRoute", "shop/storefrnt", "HTTPRoute shop/storefrnt not found (did you mean shop/storefront?)"},
		{"HTTPRoute", "shop/zzzzzzzz", "HTTPRoute shop/zzzzzzzz not found; HTTPRoutes in the inputs: shop/api, infra/edge, shop/storefront"},
		{"Gateway", "infra/x", "Gateway infra/x not found; there is no valid Gateway in the inputs"},
	} {
		list := names
		if tc.kind == "Gateway" {
			list = nil
		}
		if got := NotFound(tc.kind, tc.name, list); got != tc.want {
			t.Errorf("NotFound(%s, %s) = %q, want %q", tc.kind, tc.name, got, tc.want)
		}
	}
	if got := Similar("htps", []string{"http", "https", "grpc"}); len(got) != 2 || got[0] != "https" {
		t.Errorf("Similar(htps) = %q", got)
	}
}
