package descriptor

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/rlpkit/rlpkit/fielderr"
)

// FuzzDecode feeds arbitrary bytes to Decode, Validate and Compile: nothing panics, errors are
// a fielderr.List with at least one problem, and a decoded configuration survives an
// encode/decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"failureModeDeny":true,"rateLimitPolicies":[{"name":"a","rateLimitDomain":"d","upstreamCluster":"c","hostnames":["*.a.com"],"gatewayActions":[{"rules":[{"paths":["/x*"],"methods":["GET"],"hosts":["a.a.com"]}],"configurations":[{"actions":[{"generic_key":{"descriptor_value":"v"}},{"header_value_match":{"descriptor_value":"h","headers":[{"name":"x","safe_regex_match":{"regex":"a+"}}]}}],"limit":{"dynamic_metadata":{"metadata_key":{"key":"k","path":[{"key":"p"}]}}},"hits_addend":{"number":2}}]}]}]}`,
		`{"failure_mode_deny":false,"ratelimitpolicies":{"a/b":{"hosts":["x.com"],"rules":[{"operations":[{"paths":["/"]}],"actions":[{"remote_address":{}}]}],"global_actions":[{"generic_key":{"descriptor_value":"g"}}],"upstream_cluster":"c","domain":"d"}}}`,
		`{"rateLimitPolicies":[{"hostnames":"x","routeMatches":[{"path":{"type":"Exact","value":"/"},"headers":[{"name":"a","type":"RegularExpression","value":"("}]}]}]}`,
		`{"rateLimitPolicies":[{"gatewayActions":[{"configurations":[{"hits_addend":{"number":18446744073709551616}}]}]}]}`,
		`{"rateLimitPolicies":[{"rateLimitDomain":"d","upstreamCluster":"c","hostnames":["*"],"gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"llm"}}],"hits_addend":{"response_body":{"json_pointer":"/usage/total_tokens"}}}]}]}]}`,
		`{"rateLimitPolicies":[{"gatewayActions":[{"configurations":[{"hits_addend":{"response_body":{"json_pointer":"a~"}}}]}]}]}`,
		`[`, `null`, `{"a":1}{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Decode(data)
		if err != nil {
			checkErrors(t, err)
			return
		}
		if err := Validate(cfg); err != nil {
			checkErrors(t, err)
			if _, cerr := Compile(cfg); cerr == nil {
				t.Fatalf("Compile accepted a configuration Validate rejects: %v", err)
			}
			return
		}
		if _, err := Compile(cfg); err != nil {
			t.Fatalf("Compile rejected a valid configuration: %v", err)
		}
		encoded, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		again, err := Decode(encoded)
		if err != nil {
			t.Fatalf("Decode(Marshal(cfg)) = %v for %s", err, encoded)
		}
		if diff := cmp.Diff(cfg, again, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("round trip changed the configuration (-first +second):\n%s", diff)
		}
	})
}

func checkErrors(t *testing.T, err error) {
	t.Helper()
	var list fielderr.List
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %v (%T) is not a non-empty fielderr.List", err, err)
	}
}

// fuzzConfig exercises every action type, rules and route matches.
const fuzzConfig = `{"rateLimitPolicies":[
 {"name":"routes","rateLimitDomain":"r","upstreamCluster":"c","hostnames":["api.example.com"],
  "routeMatches":[{"path":{"value":"/admin/"}},{"path":{"type":"Exact","value":"/x"},"method":"POST","headers":[{"name":"x-a","type":"RegularExpression","value":"[a-z]+"}]}],
  "gatewayActions":[{"configurations":[{"actions":[{"generic_key":{"descriptor_value":"admin"}}]}]}]},
 {"name":"all","rateLimitDomain":"a","upstreamCluster":"c","hostnames":["*.example.com","*"],
  "gatewayActions":[
   {"rules":[{"paths":["/a*","/b"],"methods":["GET"]},{"hosts":["*.example.com"]}],
    "configurations":[{"actions":[{"request_headers":{"header_name":"x-user","descriptor_key":"u"}},{"remote_address":{}}],
      "limit":{"dynamic_metadata":{"metadata_key":{"key":"ns","path":[{"key":"limit"}]}}},
      "hits_addend":{"dynamic_metadata":{"metadata_key":{"key":"ns","path":[{"key":"cost"}]}}}}]},
   {"configurations":[
     {"actions":[{"metadata":{"descriptor_key":"t","default_value":"anon","metadata_key":{"key":"ns","path":[{"key":"tenant"}]}}}]},
     {"actions":[{"request_headers":{"header_name":"x-plan","descriptor_key":"p","skip_if_absent":true}},{"generic_key":{"descriptor_value":"g"}}],"hits_addend":{"number":0}},
     {"actions":[{"header_value_match":{"descriptor_value":"h","expect_match":false,"headers":[{"name":"x-user","prefix_match":"a"},{"name":":path","contains_match":"z"},{"name":"x-plan","present_match":false,"invert_match":true}]}}]}]}]}]}`

// FuzzGenerate feeds arbitrary requests to an engine: nothing panics, and Generate,
// GenerateInto on a reused Result and Explain all give the same result, twice.
func FuzzGenerate(f *testing.F) {
	cfg, err := Decode([]byte(fuzzConfig))
	if err != nil {
		f.Fatal(err)
	}
	e := mustCompile(f, cfg)
	f.Add("GET", "api.example.com", "/admin/x", "alice", "gold", "203.0.113.1:80", "acme", 12.0)
	f.Add("POST", "API.example.COM.:443", "/x?q", "bob", "", "[::1]:1", "", -1.0)
	f.Add("PUT", "[::1]", "/a", "", "x", "not an ip", "t", 1.5)
	f.Add("", "", "", "", "", "", "", 0.0)
	f.Fuzz(func(t *testing.T, method, host, path, user, plan, remote, tenant string, cost float64) {
		headers := HeaderMap{"x-user": {user}, "x-a": {user}}
		if plan != "" {
			headers["x-plan"] = []string{plan, user}
		}
		req := &Request{
			Method: method, Host: host, Path: path, Headers: headers, RemoteAddress: remote,
			DynamicMetadata: Metadata{"ns": map[string]any{
				"tenant": tenant, "cost": cost,
				"limit": map[string]any{"requests_per_unit": cost, "unit": plan},
			}},
		}
		first, _ := json.Marshal(e.Generate(req))
		var reused Result
		e.GenerateInto(&Request{Method: "GET", Host: "api.example.com", Path: "/admin/"}, &reused)
		e.GenerateInto(req, &reused)
		second, _ := json.Marshal(&reused)
		explained, tr := e.Explain(req)
		third, _ := json.Marshal(explained)
		if string(first) != string(second) || string(first) != string(third) {
			t.Fatalf("Generate = %s, GenerateInto = %s, Explain = %s", first, second, third)
		}
		_ = tr.String()
	})
}
