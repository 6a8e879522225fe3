package fromhttp_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/descriptor/fromhttp"
)

// A Go proxy's middleware turns each incoming request into descriptors: per
// client address, and per API key when the request carries one.
func ExampleRequest() {
	cfg, err := descriptor.Decode([]byte(`{"rateLimitPolicies": [{
	  "rateLimitDomain": "api", "upstreamCluster": "rate-limit", "hostnames": ["api.example.com"],
	  "gatewayActions": [{"configurations": [
	    {"actions": [{"remote_address": {}}]},
	    {"actions": [{"request_headers": {"header_name": "x-api-key", "descriptor_key": "key"}}]}
	  ]}]}]}`))
	if err != nil {
		log.Fatal(err)
	}
	engine, err := descriptor.Compile(cfg)
	if err != nil {
		log.Fatal(err)
	}
	var res descriptor.Result // reused across requests: no allocation once warm
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req := fromhttp.Request(r)
		engine.GenerateInto(&req, &res)
		fmt.Printf("%s %s: domain %s,", r.Method, r.URL.Path, res.Domain)
		for _, d := range res.Descriptors {
			fmt.Print(" ", d.Entries)
		}
		fmt.Println()
	})

	r := httptest.NewRequest("GET", "http://api.example.com/v1/orders?limit=5", nil)
	r.RemoteAddr = "203.0.113.9:51000"
	r.Header.Set("X-Api-Key", "k-42")
	handler.ServeHTTP(httptest.NewRecorder(), r)

	r = httptest.NewRequest("POST", "http://api.example.com/v1/orders", nil)
	r.RemoteAddr = "[2001:db8::1]:443"
	handler.ServeHTTP(httptest.NewRecorder(), r)
	// Output:
	// GET /v1/orders: domain api, [{remote_address 203.0.113.9}] [{key k-42}]
	// POST /v1/orders: domain api, [{remote_address 2001:db8::1}]
}
