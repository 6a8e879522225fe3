package wasmshim

import (
	"testing"
)

// FuzzCheckPredicate: checking never panics, and a predicate that checks compiles in the
// evaluation environment too and evaluates without panicking.
func FuzzCheckPredicate(f *testing.F) {
	for _, s := range []string{
		"request.method == 'POST'",
		"request.headers.exists(h, h.lowerAscii() == 'x-plan' && request.headers[h] == 'gold')",
		"'page' in queryMap(request.query) ? queryMap(request.query)['page'] == '1' : false",
		"request.url_path.matches('^/v[0-9]+')",
		"auth.identity.userid == 'bob'",
		"source.port > 1024 && destination.port == 443",
		"request.metod == 'GET'",
		"size(request.path) > 2 || connection.mtls",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := CheckPredicate(src); err != nil {
			return
		}
		ev, err := New(&Config{Services: map[string]Service{"rl": {Type: ServiceRateLimit}}, ActionSets: []ActionSet{{
			RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"*"}, Predicates: []string{src}},
			Actions:             []Action{{Service: "rl", ConditionalData: []ConditionalData{{Data: []DataItem{{Static: &StaticData{Key: "k", Value: "v"}}}}}}},
		}}})
		if err != nil {
			t.Fatalf("CheckPredicate(%q) passed but New failed: %v", src, err)
		}
		ev.Evaluate(&Request{Method: "GET", Host: "a.example.com", Path: "/x?y=1", Headers: map[string][]string{"x-plan": {"gold"}}, SourceAddress: "10.0.0.1:80"})
	})
}
