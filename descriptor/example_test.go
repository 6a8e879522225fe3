package descriptor_test

import (
	"fmt"
	"log"

	"github.com/rlpkit/rlpkit/descriptor"
)

// A filter's job: compile a PluginConfig once, then turn each request into
// the domain and descriptors to send to the rate-limit service. This is the
// toystore configuration of the Kuadrant proposal "RateLimitPolicy targeting
// a Gateway resource", with a per-user descriptor added.
func Example() {
	cfg, err := descriptor.Decode([]byte(`{
	  "rateLimitPolicies": [{
	    "name": "default/toystore",
	    "rateLimitDomain": "toystore-app",
	    "upstreamCluster": "rate-limit-cluster",
	    "hostnames": ["*.toystore.com"],
	    "gatewayActions": [
	      {"rules": [{"paths": ["/admin/toy"], "methods": ["POST", "DELETE"]}],
	       "configurations": [{"actions": [{"generic_key": {"descriptor_key": "admin", "descriptor_value": "yes"}}]}]},
	      {"configurations": [
	        {"actions": [{"generic_key": {"descriptor_key": "vhaction", "descriptor_value": "yes"}}]},
	        {"actions": [{"request_headers": {"header_name": "x-user", "descriptor_key": "user"}}]}]}
	    ]
	  }]
	}`))
	if err != nil {
		log.Fatal(err)
	}
	engine, err := descriptor.Compile(cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, req := range []descriptor.Request{
		{Method: "POST", Host: "api.toystore.com", Path: "/admin/toy", Headers: descriptor.HeaderMap{"x-user": {"alice"}}},
		{Method: "GET", Host: "www.toystore.com:8080", Path: "/toys?page=2"}, // no x-user: no per-user descriptor
		{Method: "GET", Host: "example.com", Path: "/"},                      // no policy: the service is not called
	} {
		res := engine.Generate(&req)
		if !res.ShouldCall() {
			fmt.Printf("%s %s%s: no call\n", req.Method, req.Host, req.Path)
			continue
		}
		fmt.Printf("%s %s%s: domain %s\n", req.Method, req.Host, req.Path, res.Domain)
		for _, d := range res.Descriptors {
			fmt.Println("  ", d.Entries)
		}
	}
	// Output:
	// POST api.toystore.com/admin/toy: domain toystore-app
	//    [{admin yes}]
	//    [{vhaction yes}]
	//    [{user alice}]
	// GET www.toystore.com:8080/toys?page=2: domain toystore-app
	//    [{vhaction yes}]
	// GET example.com/: no call
}
