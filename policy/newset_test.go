package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
)

func TestNewSet(t *testing.T) {
	target := gatewayv1.LocalPolicyTargetReference{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "r"}
	valid := &RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ok"}, Spec: RateLimitPolicySpec{TargetRef: target,
		Default: &RateLimitPolicyConfig{RateLimits: []RateLimitSpec{{MaxValue: 1, Seconds: 1}}}}}
	invalid := valid.DeepCopy()
	invalid.Name = "bad"
	invalid.Spec.Default.RateLimits[0].Seconds = 0
	again := valid.DeepCopy()
	again.Spec.Default.RateLimits[0].MaxValue = 2
	unnamed := valid.DeepCopy()
	unnamed.Name = ""
	gw := &gatewayv1.Gateway{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gw"}, Spec: gatewayv1.GatewaySpec{GatewayClassName: "c",
		Listeners: []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType}}}}
	ns := &Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}

	s := NewSet([]*gatewayv1.Gateway{gw}, nil, []*RateLimitPolicy{valid, invalid, again, unnamed}, []*Namespace{ns})

	var names []string
	for _, p := range s.Policies {
		names = append(names, p.Name+"/"+string(rune('0'+p.Spec.Default.RateLimits[0].MaxValue)))
	}
	if diff := cmp.Diff([]string{"ok/1", "bad/1"}, names); diff != "" {
		t.Errorf("NewSet(...).Policies (-want +got): the second ns/ok and the unnamed policy are left out\n%s", diff)
	}
	tests := []struct {
		key  ObjectKey
		want string
	}{
		{ObjectKey{Kind: KindRateLimitPolicy, Namespace: "ns", Name: "ok"}, ""},
		{ObjectKey{Kind: KindRateLimitPolicy, Namespace: "ns", Name: "bad"}, "spec.default.rateLimits[0].seconds: Invalid value: 0: must be greater than 0"},
		{ObjectKey{Kind: KindGateway, Namespace: "ns", Name: "gw"}, ""},
		{ObjectKey{Kind: KindNamespace, Name: "ns"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.key.String(), func(t *testing.T) {
			if _, ok := s.Source(tc.key); !ok {
				t.Errorf("Source(%s) is missing: the object is in the Set", tc.key)
			}
			got := s.Problems(tc.key).ToAggregate()
			if (got == nil) != (tc.want == "") || (got != nil && got.Error() != tc.want) {
				t.Errorf("Problems(%s) = %v, want %q", tc.key, got, tc.want)
			}
		})
	}
}

func TestAddPoliciesV1(t *testing.T) {
	target := gatewayv1.LocalPolicyTargetReferenceWithSectionName{LocalPolicyTargetReference: gatewayv1.LocalPolicyTargetReference{Group: "gateway.networking.k8s.io", Kind: "HTTPRoute", Name: "r"}}
	valid := &kuadrantv1.RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "same"}, Spec: kuadrantv1.RateLimitPolicySpec{TargetRef: target,
		RateLimitPolicySpecProper: kuadrantv1.RateLimitPolicySpecProper{Limits: map[string]kuadrantv1.Limit{"l": {Rates: []kuadrantv1.Rate{{Limit: 1, Window: "1s"}}}}}}}
	invalid := valid.DeepCopy()
	invalid.Name = "bad"
	invalid.Spec.Limits["l"].Rates[0].Window = "1d"
	again := valid.DeepCopy()
	unnamed := valid.DeepCopy()
	unnamed.Name = ""
	// A v1alpha1 policy of the same name is another object.
	v1alpha1 := &RateLimitPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "same"}, Spec: RateLimitPolicySpec{TargetRef: target.LocalPolicyTargetReference,
		Default: &RateLimitPolicyConfig{RateLimits: []RateLimitSpec{{MaxValue: 1, Seconds: 1}}}}}

	s := NewSet(nil, nil, []*RateLimitPolicy{v1alpha1}, nil)
	s.AddPoliciesV1([]*kuadrantv1.RateLimitPolicy{valid, invalid, again, unnamed})

	var names []string
	for _, p := range s.PoliciesV1 {
		names = append(names, p.Name)
	}
	if diff := cmp.Diff([]string{"same", "bad"}, names); diff != "" {
		t.Errorf("AddPoliciesV1(...): PoliciesV1 (-want +got): the second ns/same and the unnamed policy are left out\n%s", diff)
	}
	if len(s.Policies) != 1 {
		t.Errorf("AddPoliciesV1(...): Policies = %d, want the v1alpha1 policy of the same name kept", len(s.Policies))
	}
	tests := []struct {
		key  ObjectKey
		want string
	}{
		{PolicyV1Key(valid), ""},
		{PolicyV1Key(invalid), `spec.limits[l].rates[0].window: Invalid value: "1d": must match ^([0-9]{1,5}(h|m|s|ms)){1,4}$: a duration such as 30s, 1m or 1h30m (no spaces, no days)`},
		{PolicyKey(v1alpha1), ""},
	}
	for _, tc := range tests {
		t.Run(tc.key.String(), func(t *testing.T) {
			if _, ok := s.Source(tc.key); !ok {
				t.Errorf("Source(%s) is missing: the object is in the Set", tc.key)
			}
			got := s.Problems(tc.key).ToAggregate()
			if (got == nil) != (tc.want == "") || (got != nil && got.Error() != tc.want) {
				t.Errorf("Problems(%s) = %v, want %q", tc.key, got, tc.want)
			}
		})
	}
}
