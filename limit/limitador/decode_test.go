package limitador

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/limit/counter"
)

func TestDecodeLimits(t *testing.T) {
	in := `[
	  {"namespace": "toystore", "max_value": 5, "seconds": 10,
	   "conditions": ["method == 'GET'", "descriptors[0]['path'].startsWith('/toy')"],
	   "variables": ["user", "descriptors[0]['plan']"], "name": "per-user", "algorithm": "token_bucket"},
	  {"namespace": "toystore", "max_value": 1e3, "seconds": 60.0, "conditions": null, "variables": []},
	  {"namespace": "other", "max_value": 0, "seconds": 1, "id": "other-1", "conditions": ["limit.id == 'other-1'"]}
	]`
	got, err := DecodeLimits([]byte(in))
	if err != nil {
		t.Fatalf("DecodeLimits = %v", err)
	}
	want := []Limit{
		{Namespace: "toystore", MaxValue: 5, Seconds: 10,
			Conditions: []string{"method == 'GET'", "descriptors[0]['path'].startsWith('/toy')"},
			Variables:  []string{"user", "descriptors[0]['plan']"}, Name: "per-user", Algorithm: counter.AlgorithmTokenBucket},
		{Namespace: "toystore", MaxValue: 1000, Seconds: 60, Variables: []string{}},
		{Namespace: "other", MaxValue: 0, Seconds: 1, ID: "other-1", Conditions: []string{"limit.id == 'other-1'"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DecodeLimits mismatch (-want +got):\n%s", diff)
	}
	if got, err := DecodeLimits([]byte("null")); err != nil || len(got) != 0 {
		t.Errorf("DecodeLimits(null) = %v, %v; want no limits, no error", got, err)
	}
}

func TestDecodeLimitsErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"not json", `[{`, []string{"limit: invalid JSON: unexpected end of JSON input"}},
		{"not a list", `{"namespace": "a"}`, []string{"limit: limits must be a JSON list"}},
		{"every problem at once", `[
		  {"namespace": "a", "max_value": 1, "seconds": 1},
		  {"namespace": "a", "max_value": -1, "seconds": 0},
		  {"namespace": "", "max_value": 1.5, "seconds": 4294967296, "conditions": "x == y"},
		  {"namespace": "a", "max_vaule": 5, "seconds": 1, "seconds": 2},
		  "limit",
		  {"namespace": 7, "max_value": 1, "seconds": 1, "conditions": ["ok == 'x'", 3, "a b =="], "variables": ["", "descriptors[0]"], "algorithm": "leaky", "id": 3},
		  {"namespace": "a", "max_value": 9, "seconds": 1, "conditions": [], "variables": null}
		]`, []string{
			"limit: [1].max_value: must be greater than or equal to 0",
			"limit: [1].seconds: must be greater than 0",
			"limit: [2].max_value: must be an integer",
			"limit: [2].seconds: must be at most 4294967295",
			"limit: [2].conditions: must be a list of strings",
			"limit: [2].namespace: must not be empty",
			"limit: [3].max_vaule: unknown field",
			"limit: [3].seconds: repeated field",
			"limit: [3].max_value: required field is missing",
			"limit: [4]: must be an object",
			"limit: [5].namespace: must be a string",
			"limit: [5].conditions[1]: must be a string",
			`limit: [5].algorithm: unknown algorithm "leaky" (want fixed_window, sliding_window, token_bucket or gcra)`,
			"limit: [5].id: must be a string",
			"limit: [5].variables[0]: must not be empty",
			`limit: [5].variables[1]: variable "descriptors[0]": must evaluate to a string, a number or a bool, not map(string, string)`,
			"limit: [6]: same identity as [0] (namespace, seconds, conditions and variables)",
		}},
		{"numbers in quotes are strings, not integers", `[
		  {"namespace": "a", "max_value": "10", "seconds": " 60 ", "conditions": [], "variables": []},
		  {"namespace": "a", "max_value": "1e3", "seconds": "1m", "conditions": [], "variables": []},
		  {"namespace": "a", "max_value": true, "seconds": "", "conditions": [], "variables": []}
		]`, []string{
			"limit: [0].max_value: must be an integer, not a string: write 10 without quotes",
			"limit: [0].seconds: must be an integer, not a string: write 60 without quotes",
			"limit: [1].max_value: must be an integer",
			"limit: [1].seconds: must be an integer number of seconds: write 60 for 1m",
			"limit: [2].max_value: must be an integer",
			"limit: [2].seconds: must be an integer",
		}},
		{"condition syntax error names the text", `[{"namespace": "a", "max_value": 1, "seconds": 1, "conditions": ["user == 'x'", "a b =="]}]`,
			[]string{`limit: [0].conditions[1]: condition "a b ==": Syntax error: mismatched input 'b' expecting <EOF> (column 3)`}},
		{"same identity, conditions as a set", `[
		  {"namespace": "a", "max_value": 1, "seconds": 60, "conditions": ["x == 'y'", "z != w"], "variables": ["u", "v"]},
		  {"namespace": "a", "max_value": 2, "seconds": 60, "conditions": ["z != \"w\"", "x==y"], "variables": ["v", "descriptors[0].u"], "algorithm": "gcra"}
		]`, []string{"limit: [1]: same identity as [0] (namespace, seconds, conditions and variables)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeLimits([]byte(tc.in))
			if err == nil {
				t.Fatalf("DecodeLimits = %v, want errors", got)
			}
			list, ok := err.(fielderr.List)
			if !ok {
				t.Fatalf("DecodeLimits error is %T, want fielderr.List", err)
			}
			var lines []string
			for _, e := range list {
				lines = append(lines, e.Error())
			}
			if diff := cmp.Diff(tc.want, lines); diff != "" {
				t.Errorf("DecodeLimits errors mismatch (-want +got):\n%s", diff)
			}
			if err.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("fielderr.List.Error() = %q, want the errors one a line", err.Error())
			}
		})
	}
}

func TestIdentity(t *testing.T) {
	base := Limit{Namespace: "a", Seconds: 60, Conditions: []string{"x == 'y'"}, Variables: []string{"u"}}
	same := []Limit{
		{Namespace: "a", Seconds: 60, MaxValue: 99, Name: "n", Algorithm: counter.AlgorithmGCRA, Conditions: []string{`x=="y"`, "x == y"}, Variables: []string{"descriptors[0]['u']", "u"}},
	}
	different := []Limit{
		{Namespace: "b", Seconds: 60, Conditions: []string{"x == 'y'"}, Variables: []string{"u"}},
		{Namespace: "a", Seconds: 61, Conditions: []string{"x == 'y'"}, Variables: []string{"u"}},
		{Namespace: "a", Seconds: 60, Conditions: []string{"x != 'y'"}, Variables: []string{"u"}},
		{Namespace: "a", Seconds: 60, Conditions: []string{"x == 'y'"}},
		{Namespace: "a", Seconds: 60, Conditions: []string{"x == 'y'", "u == 'v'"}, Variables: []string{"u"}},
		// Moving a string between the lists changes the identity.
		{Namespace: "a", Seconds: 60, Variables: []string{"x == 'y'", "u"}},
		{Namespace: "a:60", Seconds: 60, Conditions: []string{"x == 'y'"}, Variables: []string{"u"}},
	}
	for _, l := range same {
		if l.Identity() != base.Identity() {
			t.Errorf("Identity(%+v) = %q, want %q", l, l.Identity(), base.Identity())
		}
	}
	for _, l := range different {
		if l.Identity() == base.Identity() {
			t.Errorf("Identity(%+v) equals Identity(%+v) = %q", l, base, base.Identity())
		}
	}
}

func FuzzDecodeLimits(f *testing.F) {
	for _, s := range []string{
		`[{"namespace": "a", "max_value": 1, "seconds": 1}]`,
		`[{"namespace": "a", "max_value": 1, "seconds": 1, "conditions": ["a == 'b'", "descriptors[0].a == 'x'"], "variables": ["v"]}]`,
		`[{"namespace": "a", "max_value": -1, "seconds": 0, "extra": true}]`,
		`[{"namespace": "a", "max_value": 1e3, "seconds": 1.5, "algorithm": "gcra"}, 3, null]`,
		`null`, `{}`, `[`, `[[]]`, `[{"seconds": 1, "seconds": 2}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		limits, err := DecodeLimits(data)
		if err != nil {
			list, ok := err.(fielderr.List)
			if !ok || len(list) == 0 {
				t.Fatalf("DecodeLimits error %T %v, want a non-empty fielderr.List", err, err)
			}
			for _, e := range list {
				if !strings.HasPrefix(e.Error(), "limit: ") {
					t.Fatalf("error %q lacks the package prefix", e)
				}
			}
			return
		}
		if err := ValidateLimits(limits); err != nil {
			t.Fatalf("DecodeLimits accepted limits that ValidateLimits rejects: %v", err)
		}
		if _, err := NewEvaluator(limits, counter.NewMemoryStore(counter.MemoryOptions{MaxKeys: 64})); err != nil {
			t.Fatalf("DecodeLimits accepted limits that NewEvaluator rejects: %v", err)
		}
	})
}
