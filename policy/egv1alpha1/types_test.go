package egv1alpha1

import (
	"encoding/json"
	"testing"

	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

func TestUnread(t *testing.T) {
	var s BackendTrafficPolicySpec
	if err := json.Unmarshal([]byte(`{"timeout": {"http": {"requestTimeout": "5s"}}, "retry": null}`), &s); err != nil {
		t.Fatal(err)
	}
	if !s.Timeout.IsSet() || s.Retry.IsSet() || s.LoadBalancer.IsSet() {
		t.Errorf("timeout set %v, retry set %v, loadBalancer set %v; want only timeout", s.Timeout.IsSet(), s.Retry.IsSet(), s.LoadBalancer.IsSet())
	}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != `{"timeout":{"http":{"requestTimeout":"5s"}}}` {
		t.Errorf("Marshal = %s, want the timeout as written and nothing else", js)
	}
}

func TestTargets(t *testing.T) {
	ref := func(name string) gatewayv1.LocalPolicyTargetReferenceWithSectionName {
		return gatewayv1.LocalPolicyTargetReferenceWithSectionName{LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Name: gatewayv1.ObjectName(name)}}
	}
	one := ref("one")
	s := BackendTrafficPolicySpec{TargetRef: &one, TargetRefs: []gatewayv1.LocalPolicyTargetReferenceWithSectionName{ref("two")}}
	if got := s.Targets(); len(got) != 1 || got[0].Name != "one" {
		t.Errorf("Targets = %v, want targetRef alone, as Envoy Gateway reads it", got)
	}
	for _, u := range Units {
		if u.Seconds() == 0 {
			t.Errorf("%s.Seconds() = 0", u)
		}
	}
	if RateLimitUnitMonth.Seconds() != 30*86400 || RateLimitUnitYear.Seconds() != 365*86400 || RateLimitUnit("Fortnight").Seconds() != 0 {
		t.Error("a month is 30 days, a year 365, an unknown unit 0")
	}
}
