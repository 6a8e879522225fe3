package wasmshim

import (
	"strings"
	"testing"
)

// TestOperatorCheck: the operator's check leaves the attribute groups untyped, declares
// auth only with an AuthPolicy, and quotes cel-go's error.
func TestOperatorCheck(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		withAuth bool
		wantErr  string // substring; empty: valid
	}{
		{"method", "request.method == 'POST'", false, ""},
		{"undeclared attribute passes", "source.id == source.address", false, ""},
		{"misspelt attribute passes", "request.metod == 'GET'", false, ""},
		{"not a bool passes", "request.method", false, ""},
		{"string extension", "request.url_path.lowerAscii().startsWith('/a')", false, ""},
		{"body", "requestBodyJSON('/model') == 'gpt'", false, ""},
		{"auth without AuthPolicy", "auth.identity.userid == 'bob'", false, "undeclared reference to 'auth'"},
		{"auth with AuthPolicy", "auth.identity.userid == 'bob'", true, ""},
		{"unknown group", "req.method == 'GET'", false, "undeclared reference to 'req'"},
		{"queryMap is not declared", "queryMap(request.query)['a'] == '1'", false, "undeclared reference to 'queryMap'"},
		{"syntax", "request.method ==", false, "Syntax error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := OperatorCheck(tc.src, tc.withAuth)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("OperatorCheck(%q) = %v, want no error", tc.src, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("OperatorCheck(%q) = %v, want an error containing %q", tc.src, err, tc.wantErr)
			}
		})
	}
}
