package kuadrantv1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

// TestAuthPolicyRuleKeys: the keys the operator's merge strategies merge an AuthPolicy's
// rules by, from the block in effect.
func TestAuthPolicyRuleKeys(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string
		hasRules   bool
	}{
		{
			name: "every kind of rule",
			spec: `{targetRef: {kind: Gateway, name: g}, patterns: {internal: {allOf: []}}, when: [{predicate: "true"}],
rules: {authentication: {a: {}, b: {}}, metadata: {m: {}}, authorization: {z: {}}, callbacks: {c: {}},
response: {unauthenticated: {code: 401}, unauthorized: {code: 403}, success: {headers: {h: {}}, filters: {identity: {}}}}}}`,
			want: []string{"authentication#a", "authentication#b", "authorization#z", "callbacks#c", "conditions#", "metadata#m", "patterns#internal",
				"response.success.headers#h", "response.success.metadata#identity", "response.unauthenticated#", "response.unauthorized#"},
			hasRules: true,
		},
		{
			name:     "overrides",
			spec:     `{targetRef: {kind: Gateway, name: g}, overrides: {strategy: merge, rules: {authorization: {deny: {}}}}}`,
			want:     []string{"authorization#deny"},
			hasRules: true,
		},
		{
			name: "patterns and when are not rules",
			spec: `{targetRef: {kind: Gateway, name: g}, defaults: {patterns: {p: {allOf: []}}, when: [{predicate: "true"}], rules: {response: {success: {}}}}}`,
			want: []string{"conditions#", "patterns#p"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p AuthPolicy
			if err := yaml.Unmarshal([]byte(tc.spec), &p.Spec); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.RuleKeys()); diff != "" {
				t.Errorf("RuleKeys() (-want +got):\n%s", diff)
			}
			if got := p.HasRules(); got != tc.hasRules {
				t.Errorf("HasRules() = %v, want %v", got, tc.hasRules)
			}
		})
	}
}
