package limitador

import (
	"testing"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

func TestIdentityKey(t *testing.T) {
	tests := []struct {
		name       string
		a, b       Limit
		sameKey    bool
		sameTarget bool // Identity equal too
	}{
		{
			name:    "spelling variants",
			a:       Limit{Namespace: "n", Seconds: 60, Conditions: []string{"k == v"}, Variables: []string{"descriptors[0].user"}},
			b:       Limit{Namespace: "n", Seconds: 60, Conditions: []string{"k == 'v'", `k=="v"`}, Variables: []string{"descriptors[0]['user']", "user"}},
			sameKey: true, sameTarget: true,
		},
		{
			name:    "namespace is not part of the key",
			a:       Limit{Namespace: "n", Seconds: 60, Conditions: []string{"k == v"}},
			b:       Limit{Namespace: "m", Seconds: 60, Conditions: []string{"k == v"}},
			sameKey: true,
		},
		{
			name: "seconds differ",
			a:    Limit{Namespace: "n", Seconds: 60},
			b:    Limit{Namespace: "n", Seconds: 61},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ka := IdentityKey(int64(tc.a.Seconds), tc.a.Conditions, tc.a.Variables)
			kb := IdentityKey(int64(tc.b.Seconds), tc.b.Conditions, tc.b.Variables)
			if got := ka == kb; got != tc.sameKey {
				t.Errorf("IdentityKey(%+v) == IdentityKey(%+v) is %v, want %v", tc.a, tc.b, got, tc.sameKey)
			}
			if got := tc.a.Identity() == tc.b.Identity(); got != tc.sameTarget {
				t.Errorf("Identity(%+v) == Identity(%+v) is %v, want %v", tc.a, tc.b, got, tc.sameTarget)
			}
		})
	}
	if IdentityKey(-1, nil, nil) == IdentityKey(1, nil, nil) {
		t.Errorf("IdentityKey(-1, nil, nil) == IdentityKey(1, nil, nil), want different keys")
	}
}

func TestParseVariable(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: "user", want: "user"},
		{in: " user ", want: "user"},
		{in: "descriptors[0].user", want: "user"},
		{in: "descriptors[0]['user']", want: "user"},
		{in: `descriptors[0]["a.b"]`, want: "a.b"},
		{in: "", wantErr: true},
		{in: "descriptors[1].user", want: "descriptors[1].user"},
		{in: " descriptors[0]['a'] + '/' + descriptors[1]['b'] ", want: "descriptors[0]['a'] + '/' + descriptors[1]['b']"},
		{in: "size(descriptors)", want: "size(descriptors)"},
		{in: "descriptors[0]", wantErr: true},
		{in: "descriptors[0]['a'] +", wantErr: true},
		{in: "nope(1)", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseVariable(tc.in)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("ParseVariable(%q) = %q, %v, want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func FuzzParseVariable(f *testing.F) {
	for _, s := range []string{
		"user", "descriptors[0]['a.b']", "descriptors[1].x", "descriptors[0].a.b", "size(descriptors)",
		"descriptors[0]", "limit.name", "descriptors[0]['a'] + descriptors[1]['b']", "1.5", "null", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		form, err := ParseVariable(src)
		if err != nil {
			return
		}
		v, err := parseVariable(src)
		if err != nil {
			t.Fatalf("ParseVariable(%q) = %q, but parseVariable fails: %v", src, form, err)
		}
		var act activation
		act.reset([]rlsmsg.Descriptor{{Entries: entries("a", "b", "a.b", "c")}, {Entries: entries("x", "y")}})
		v.resolve(&act)
		if again := canonicalVariable(form); again != form {
			t.Fatalf("ParseVariable(%q) = %q, whose canonical form is %q", src, form, again)
		}
	})
}
