package envoyxds_test

import (
	"fmt"
	"log"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/envoyxds"
)

// A policy whose admin gateway action has a rule becomes two routes: one for admin
// requests, with both rate limits, and one for the rest.
func ExampleTranslate() {
	cfg, err := descriptor.Decode([]byte(`{"rateLimitPolicies": [{
		"name": "default/toystore",
		"rateLimitDomain": "gw#default/toystore",
		"upstreamCluster": "rate-limit",
		"hostnames": ["*.toystore.com"],
		"gatewayActions": [
			{"rules": [{"paths": ["/admin/*"], "methods": ["POST"]}],
			 "configurations": [{"actions": [{"generic_key": {"descriptor_key": "admin", "descriptor_value": "yes"}}]}]},
			{"configurations": [{"actions": [{"remote_address": {}}]}]}
		]}]}`))
	if err != nil {
		log.Fatal(err)
	}
	out, err := envoyxds.Translate(cfg, envoyxds.Options{
		Route: func(policy int, r *routev3.Route) error {
			r.Action = &routev3.Route_Route{Route: envoyxds.DefaultRoute("toystore-backend")}
			return nil
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, vh := range out.RouteConfiguration.VirtualHosts {
		fmt.Println("virtual host", vh.Name, vh.Domains)
		for _, r := range vh.Routes {
			prl := new(ratelimitv3.RateLimitPerRoute)
			if err := r.TypedPerFilterConfig[envoyxds.FilterName].UnmarshalTo(prl); err != nil {
				log.Fatal(err)
			}
			method := "any method"
			for _, h := range r.Match.Headers {
				if h.Name == ":method" {
					method = h.GetStringMatch().GetExact()
				}
			}
			fmt.Printf("  prefix %s, %s: domain %s, %d rate limits\n", r.Match.GetPrefix(), method, prl.Domain, len(prl.RateLimits))
		}
	}
	fmt.Println("filter", out.HTTPFilters[0].Name)
	// Output:
	// virtual host default/toystore [*.toystore.com *.toystore.com.]
	//   prefix /admin/, POST: domain gw#default/toystore, 2 rate limits
	//   prefix /, any method: domain gw#default/toystore, 1 rate limits
	// filter envoy.filters.http.ratelimit
}
