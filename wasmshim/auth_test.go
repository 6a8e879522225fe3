package wasmshim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMissingAuth: the auth.* attributes an expression reads, and the first one a
// request's attributes lack.
func TestMissingAuth(t *testing.T) {
	auth := map[string]any{"identity": map[string]any{"userid": "carol", "groups": "staff"}}
	tests := []struct {
		expr    string
		reads   []string
		missing string
	}{
		{"auth.identity.userid == 'carol'", []string{"identity.userid"}, ""},
		{"auth.identity.tier == 'gold' && auth.identity.userid != ''", []string{"identity.tier", "identity.userid"}, "identity.tier"},
		{"auth.identity.userid.startsWith('c') || auth.identity.userid == 'x'", []string{"identity.userid"}, ""},
		{"request.headers['x-auth.user'] == 'a'", nil, ""},
		{"oauth.token == 'a'", nil, ""},
		{"auth.identity", []string{"identity"}, ""},
		{"auth.plan(", nil, ""},
		{"size(auth.identity.groups) > 0 && \"auth.x\" != ''", []string{"identity.groups"}, ""},
	}
	for _, tc := range tests {
		if diff := cmp.Diff(tc.reads, AuthAttributes(tc.expr)); diff != "" {
			t.Errorf("AuthAttributes(%q) (-want +got):\n%s", tc.expr, diff)
		}
		if got := MissingAuth(tc.expr, auth); got != tc.missing {
			t.Errorf("MissingAuth(%q) = %q, want %q", tc.expr, got, tc.missing)
		}
	}
	if got := MissingAuth("auth.identity.userid == 'a'", nil); got != "identity.userid" {
		t.Errorf("MissingAuth(no attributes) = %q, want identity.userid", got)
	}
}
