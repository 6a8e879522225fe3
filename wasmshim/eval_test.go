package wasmshim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rlpkit/rlpkit/rlsmsg"
)

func expr(key, value string) DataItem {
	return DataItem{Expression: &ExpressionData{Key: key, Value: value}}
}

func static(key, value string) DataItem { return DataItem{Static: &StaticData{Key: key, Value: value}} }

var testServices = map[string]Service{
	"ratelimit-service": {Type: ServiceRateLimit, Endpoint: "limitador", FailureMode: FailureModeAllow},
	"auth-service":      {Type: ServiceAuth, Endpoint: "authorino", FailureMode: FailureModeDeny},
}

// testConfig has an exact and a wildcard hostname; the exact one has a /admin action set
// only, so a request for api.example.com/other gets nothing, though the wildcard's would
// match: wasm-shim tries no other hostname.
var testConfig = &Config{Services: testServices, ActionSets: []ActionSet{{
	Name:                "admin",
	RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"api.example.com"}, Predicates: []string{"request.url_path.startsWith('/admin')"}},
	Actions: []Action{{
		Service: "ratelimit-service", Scope: "app/admin",
		ConditionalData: []ConditionalData{
			{Data: []DataItem{expr("limit.all__1", "'1'")}},
			{Predicates: []string{"request.method == 'POST'"}, Data: []DataItem{expr("limit.post__2", "'1'"), expr("source.remote_address", "source.remote_address")}},
			{Predicates: []string{"request.headers['x-user'] != ''"}, Data: []DataItem{expr("user", "request.headers['x-user']"), static(KeyHitsAddend, "3"), static(KeyDomain, "custom")}},
		},
	}},
}, {
	Name:                "wild",
	RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"*.example.com"}},
	Actions: []Action{
		{Service: "auth-service", Scope: "app/wild"},
		{Service: "ratelimit-service", Scope: "app/wild", Predicates: []string{"source.port > 1024"}, ConditionalData: []ConditionalData{{Data: []DataItem{expr("port", "source.port")}}}},
	},
}, {
	Name:                "wild-2",
	RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"*.example.com"}},
	Actions:             []Action{{Service: "ratelimit-service", Scope: "app/second"}},
}, {
	Name:                "bad-hits",
	RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"bad.example.org"}},
	Actions:             []Action{{Service: "ratelimit-service", Scope: "app/bad", ConditionalData: []ConditionalData{{Data: []DataItem{static("k", "v"), static(KeyHitsAddend, "3abc")}}}}},
}}}

func TestEvaluate(t *testing.T) {
	ev, err := New(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		req       Request
		hostname  string
		actionSet int
		calls     []Call
	}{{
		name: "GET: the block without predicates only", req: Request{Method: "GET", Host: "api.example.com", Path: "/admin/x"},
		hostname: "api.example.com", actionSet: 0,
		calls: []Call{{Action: 0, Service: "ratelimit-service", Type: ServiceRateLimit, Domain: "app/admin", Blocks: []int{0}, Entries: []rlsmsg.Entry{{Key: "limit.all__1", Value: "1"}}}},
	}, {
		name: "POST with a user: every block, control keys taken out", req: Request{Method: "POST", Host: "API.example.com:8443", Path: "/admin?x=1", Headers: map[string][]string{"X-User": {"bob"}}, SourceAddress: "10.1.2.3:4567"},
		hostname: "api.example.com", actionSet: 0,
		calls: []Call{{Action: 0, Service: "ratelimit-service", Type: ServiceRateLimit, Domain: "custom", Blocks: []int{0, 1, 2}, HitsAddend: 3, HitsAddendRead: true,
			Entries: []rlsmsg.Entry{{Key: "limit.all__1", Value: "1"}, {Key: "limit.post__2", Value: "1"}, {Key: "source.remote_address", Value: "10.1.2.3"}, {Key: "user", Value: "bob"}}}},
	}, {
		name: "the most specific hostname only: no fallback to the wildcard", req: Request{Method: "GET", Host: "api.example.com", Path: "/other"},
		hostname: "api.example.com", actionSet: -1,
	}, {
		name: "wildcard: first action set whose predicates hold; an auth action calls, a ratelimit action whose predicate fails does not", req: Request{Method: "GET", Host: "www.example.com", Path: "/", SourceAddress: "10.0.0.1:80"},
		hostname: "*.example.com", actionSet: 1,
		calls: []Call{{Action: 0, Service: "auth-service", Type: ServiceAuth, Domain: "app/wild", Blocks: []int{}, Entries: []rlsmsg.Entry{}}},
	}, {
		name: "an expression value that is an int is written as a string", req: Request{Method: "GET", Host: "www.example.com", Path: "/", SourceAddress: "10.0.0.1:5000"},
		hostname: "*.example.com", actionSet: 1,
		calls: []Call{
			{Action: 0, Service: "auth-service", Type: ServiceAuth, Domain: "app/wild", Blocks: []int{}, Entries: []rlsmsg.Entry{}},
			{Action: 1, Service: "ratelimit-service", Type: ServiceRateLimit, Domain: "app/wild", Blocks: []int{0}, Entries: []rlsmsg.Entry{{Key: "port", Value: "5000"}}},
		},
	}, {
		name: "a missing attribute makes the predicate false", req: Request{Method: "GET", Host: "www.example.com", Path: "/"},
		hostname: "*.example.com", actionSet: 1,
		calls: []Call{{Action: 0, Service: "auth-service", Type: ServiceAuth, Domain: "app/wild", Blocks: []int{}, Entries: []rlsmsg.Entry{}}},
	}, {
		name: "a hits_addend that is not a number is left out", req: Request{Method: "GET", Host: "bad.example.org", Path: "/"},
		hostname: "bad.example.org", actionSet: 3,
		calls: []Call{{Action: 0, Service: "ratelimit-service", Type: ServiceRateLimit, Domain: "app/bad", Blocks: []int{0}, Entries: []rlsmsg.Entry{{Key: "k", Value: "v"}}}},
	}, {
		name: "no hostname matches", req: Request{Method: "GET", Host: "example.org", Path: "/"},
		actionSet: -1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ev.Evaluate(&tc.req)
			if got.Hostname != tc.hostname || got.ActionSet != tc.actionSet {
				t.Errorf("Evaluate(%s %s%s) = hostname %q, action set %d, want %q, %d\n%s", tc.req.Method, tc.req.Host, tc.req.Path, got.Hostname, got.ActionSet, tc.hostname, tc.actionSet, got.Explain())
			}
			if diff := cmp.Diff(tc.calls, got.Calls); diff != "" {
				t.Errorf("Evaluate(%s %s%s) calls (-want +got):\n%s\n%s", tc.req.Method, tc.req.Host, tc.req.Path, diff, got.Explain())
			}
		})
	}
}

// TestUnknownAttributeInData: Kuadrant does not type-check counters, so a configuration may
// hold a data expression over an attribute that does not exist. It loads, and evaluating it
// leaves the entry out, as wasm-shim fails to resolve the property at request time.
func TestUnknownAttributeInData(t *testing.T) {
	ev, err := New(&Config{Services: testServices, ActionSets: []ActionSet{{
		RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"a.com"}},
		Actions: []Action{{Service: "ratelimit-service", Scope: "s", ConditionalData: []ConditionalData{{
			Data: []DataItem{expr("id", "'1'"), expr("requesthe.aders['x-user']", "requesthe.aders['x-user']")},
		}}}},
	}}})
	if err != nil {
		t.Fatalf("New() = %v, want a configuration that loads", err)
	}
	got := ev.Evaluate(&Request{Method: "GET", Host: "a.com", Path: "/"})
	want := []Call{{Action: 0, Service: "ratelimit-service", Type: ServiceRateLimit, Domain: "s", Blocks: []int{0}, Entries: []rlsmsg.Entry{{Key: "id", Value: "1"}}}}
	if diff := cmp.Diff(want, got.Calls); diff != "" {
		t.Errorf("Evaluate() calls (-want +got):\n%s\n%s", diff, got.Explain())
	}
	if !strings.Contains(got.Explain(), "entry requesthe.aders['x-user']: left out") {
		t.Errorf("Explain() does not say the entry was left out:\n%s", got.Explain())
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown service", Config{Services: testServices, ActionSets: []ActionSet{{RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"a.com"}}, Actions: []Action{{Service: "nope"}}}}},
			`wasmshim: actionSets[0].actions[0].service: "nope" is not among the services`},
		{"bad predicate", Config{Services: testServices, ActionSets: []ActionSet{{RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"a.com"}, Predicates: []string{"request.method =="}}}}},
			`wasmshim: actionSets[0].routeRuleConditions.predicates[0]: "request.method =="`},
		{"bad hostname", Config{Services: testServices, ActionSets: []ActionSet{{RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"a.*.com"}}}}},
			`wasmshim: actionSets[0].routeRuleConditions.hostnames:`},
		{"data with neither", Config{Services: testServices, ActionSets: []ActionSet{{RouteRuleConditions: RouteRuleConditions{Hostnames: []string{"a.com"}}, Actions: []Action{{Service: "ratelimit-service", ConditionalData: []ConditionalData{{Data: []DataItem{{}}}}}}}}},
			`wasmshim: actionSets[0].actions[0].conditionalData[0].data[0]: want exactly one of static and expression`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(&tc.cfg)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("New() = %v, want an error starting %q", err, tc.want)
			}
		})
	}
}
