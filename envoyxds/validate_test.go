package envoyxds

import (
	"testing"

	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
)

// validateOutput runs go-control-plane's Validate over every message of out, including the
// ones packed in Any fields, which the enclosing message's validation does not look into.
func validateOutput(t testing.TB, out *Output) {
	t.Helper()
	if err := out.RouteConfiguration.ValidateAll(); err != nil {
		t.Errorf("RouteConfiguration.ValidateAll() = %v", err)
	}
	// Envoy also rejects a route configuration in which a domain appears twice.
	domains := make(map[string]string)
	for _, vh := range out.RouteConfiguration.VirtualHosts {
		for _, d := range vh.Domains {
			if other, dup := domains[d]; dup {
				t.Errorf("domain %q is in virtual hosts %q and %q", d, other, vh.Name)
			}
			domains[d] = vh.Name
		}
		for _, r := range vh.Routes {
			for name, a := range r.TypedPerFilterConfig {
				prl := new(ratelimitv3.RateLimitPerRoute)
				if err := a.UnmarshalTo(prl); err != nil {
					t.Errorf("route %q: typed_per_filter_config[%q]: %v", r.Name, name, err)
					continue
				}
				if err := prl.ValidateAll(); err != nil {
					t.Errorf("route %q: RateLimitPerRoute.ValidateAll() = %v", r.Name, err)
				}
			}
		}
	}
	for _, f := range out.HTTPFilters {
		if err := f.ValidateAll(); err != nil {
			t.Errorf("HttpFilter %q: ValidateAll() = %v", f.Name, err)
		}
		fc := new(ratelimitv3.RateLimit)
		if err := f.GetTypedConfig().UnmarshalTo(fc); err != nil {
			t.Errorf("HttpFilter %q: %v", f.Name, err)
			continue
		}
		if err := fc.ValidateAll(); err != nil {
			t.Errorf("HttpFilter %q: RateLimit.ValidateAll() = %v", f.Name, err)
		}
	}
}
