package fielderr

import "testing"

func TestPath(t *testing.T) {
	for _, tc := range []struct {
		p    Path
		want string
	}{
		{Path("").Child("a"), "a"},
		{Path("rateLimitPolicies").Index(0).Child("hostnames").Index(1), "rateLimitPolicies[0].hostnames[1]"},
		{Path("metadata").Child("labels").Key("app"), "metadata.labels[app]"},
	} {
		if string(tc.p) != tc.want {
			t.Errorf("path = %q, want %q", tc.p, tc.want)
		}
	}
}
