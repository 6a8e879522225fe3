package limitador

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/rlsmsg"
)

func TestParseCondition(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		canonical string
		cel       bool
	}{
		{"equal, double quotes", `user == "bob"`, `user == "bob"`, false},
		{"equal, single quotes", ` user=='bob' `, `user == "bob"`, false},
		{"not equal", `user != 'bob'`, `user != "bob"`, false},
		{"unquoted value", `admin-request == yes`, `admin-request == "yes"`, false},
		{"number value", `tier == 3`, `tier == "3"`, false},
		{"key with dots, colons, slashes", `auth.identity.kuadrant.io/groups == 'a:b'`, `auth.identity.kuadrant.io/groups == "a:b"`, false},
		{"value with a double quote", `k == 'say "hi"'`, `k == 'say "hi"'`, false},
		{"empty value", `k == ""`, `k == ""`, false},
		{"value with spaces", `k == ' a b '`, `k == " a b "`, false},
		{"reversed", `'GET' == req.method`, `req.method == "GET"`, false},
		{"a Kuadrant limit id is an entry key", `limit.global__53f76b2d == "1"`, `limit.global__53f76b2d == "1"`, false},
		{"limit.name is CEL", `limit.name == "x"`, `limit.name == "x"`, true},
		{"limit.id is CEL", `'x' == limit.id`, `'x' == limit.id`, true},
		{"unicode key", `変数 == '💖'`, `変数 == "💖"`, false},
		{"cel index", `descriptors[0]['user_id'] == 'bob'`, `descriptors[0]['user_id'] == 'bob'`, true},
		{"cel field", `descriptors[0].user_id != "bob"`, `descriptors[0].user_id != "bob"`, true},
		{"cel function", `descriptors[0]['path'].startsWith('/admin')`, `descriptors[0]['path'].startsWith('/admin')`, true},
		{"cel constant", `1 == 1`, `1 == 1`, true},
		{"cel macro", `descriptors.exists(d, 'user' in d)`, `descriptors.exists(d, 'user' in d)`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCondition(tc.src)
			if err != nil {
				t.Fatalf("ParseCondition(%q) = %v, want no error", tc.src, err)
			}
			if got := c.String(); got != tc.canonical {
				t.Errorf("ParseCondition(%q).String() = %q, want %q", tc.src, got, tc.canonical)
			}
			if got := c.IsCEL(); got != tc.cel {
				t.Errorf("ParseCondition(%q).IsCEL() = %v, want %v", tc.src, got, tc.cel)
			}
			again, err := ParseCondition(c.String())
			if err != nil || again.String() != c.String() {
				t.Errorf("ParseCondition(%q) does not round-trip: %v, %v", c.String(), again, err)
			}
		})
	}
}

func TestParseConditionErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // substring of the error
	}{
		{"empty", "  ", "must not be empty"},
		{"syntax", "a b ==", `limit: condition "a b ==": Syntax error: mismatched input 'b' expecting <EOF> (column 3)`},
		{"unclosed quote", "k == 'abc", `condition "k == 'abc"`},
		{"undeclared", "user == 'bob' && x == 'y'", "undeclared reference to 'user'"},
		{"not a bool", "descriptors[0]['a']", "must evaluate to a bool, not string"},
		{"too costly", "descriptors.all(d, d.all(k, d.all(j, d[k].matches(d[j]))))", "exceeds the limit 100000"},
		{"too long", "k == '" + strings.Repeat("x", MaxConditionLength) + "'", "more than 4096"},
		{"invalid utf-8", "k == '\xff'", "not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseCondition(tc.src)
			if err == nil {
				t.Fatalf("ParseCondition(%q) = %v, want an error containing %q", tc.src, c, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseCondition(%q) = %q, want it to contain %q", tc.src, err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "limit: ") {
				t.Errorf("ParseCondition(%q) = %q, want it to start with \"limit: \"", tc.src, err)
			}
		})
	}
}

func TestConditionHolds(t *testing.T) {
	entries := []rlsmsg.Entry{{Key: "user", Value: "bob"}, {Key: "method", Value: "GET"}, {Key: "user", Value: "alice"}, {Key: "path", Value: "/admin/x"}}
	tests := []struct {
		src  string
		want bool
	}{
		{`user == "alice"`, true}, // the last entry wins
		{`user == "bob"`, false},
		{`user != "bob"`, true},
		{`missing == "x"`, false},
		{`missing != "x"`, false}, // a missing key is false whatever the operator
		{`'GET' == method`, true},
		{`descriptors[0]['user'] == 'alice'`, true},
		{`descriptors[0].method == 'GET' && descriptors[0].path.startsWith('/admin')`, true},
		{`descriptors[0]['missing'] == 'x'`, false},
		{`descriptors[0]['missing'] != 'x'`, false},
		{`descriptors[1]['user'] == 'alice'`, false},
		{`!('missing' in descriptors[0])`, true},
		{`size(descriptors) == 1`, true},
		{`size(descriptors[0]) == 3`, true}, // user, method, path
		{`descriptors[0].exists(k, k == 'path')`, true},
		{`descriptors[0] == {'user': 'alice', 'method': 'GET', 'path': '/admin/x'}`, true},
		{`descriptors[0] == {'user': 'bob', 'method': 'GET', 'path': '/admin/x'}`, false},
		{`'method' in descriptors[0] && !('x' in descriptors[0])`, true},
		{`has(descriptors[0].method) && !has(descriptors[0].x)`, true},
		{`descriptors[0][dyn(1)] == 'x'`, false},
	}
	for _, tc := range tests {
		c, err := ParseCondition(tc.src)
		if err != nil {
			t.Fatalf("ParseCondition(%q): %v", tc.src, err)
		}
		if got := c.Holds(rlsmsg.Descriptor{Entries: entries}); got != tc.want {
			t.Errorf("ParseCondition(%q).Holds(%v) = %v, want %v", tc.src, entries, got, tc.want)
		}
	}
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{
		`user == "bob"`, `a != 'b'`, `'v' == k`, `k == v`, `k == `, `== v`, `k = v`,
		`descriptors[0]['a'] == 'b'`, `descriptors[0].a.matches('x+')`, `1 == 1`, `"a" == "b"`,
		`a == 'b' && c == 'd'`, `k == 'it''s'`, "k ==\t'x'", `_x-y.z:w/v == 1`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseCondition(src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "limit: ") {
				t.Fatalf("ParseCondition(%q) error %q lacks the package prefix", src, err)
			}
			return
		}
		c.Holds(rlsmsg.Descriptor{Entries: []rlsmsg.Entry{{Key: "a", Value: "b"}, {Key: "k", Value: "v"}}})
		again, err := ParseCondition(c.String())
		if err != nil {
			t.Fatalf("ParseCondition(%q) = %q, which does not parse: %v", src, c.String(), err)
		}
		if again.String() != c.String() || again.IsCEL() != c.IsCEL() {
			t.Fatalf("ParseCondition(%q) = %q, re-parsed as %q", src, c.String(), again.String())
		}
	})
}
