package wasmshim

import (
	"strings"
	"testing"
)

func TestCheckPredicate(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		wantErr  string // substring; empty: valid
		usesAuth bool
	}{
		{"method", "request.method == 'POST'", "", false},
		{"operator header predicate", "request.headers.exists(h, h.lowerAscii() == 'x-plan' && request.headers[h] == 'gold')", "", false},
		{"operator query predicate", "'page' in queryMap(request.query) ? queryMap(request.query)['page'] == '1' : false", "", false},
		{"prefix", "request.url_path.startsWith('/toys')", "", false},
		{"regex", "request.url_path.matches('^/toys/[0-9]+$')", "", false},
		{"port", "destination.port == 443 && source.port > 1024", "", false},
		{"connection", "connection.mtls", "", false},
		{"time", "request.time > timestamp('2026-01-01T00:00:00Z')", "", false},
		{"body", "requestBodyJSON('/model') == 'gpt'", "", false},
		{"auth", "auth.identity.userid == 'bob'", "", true},
		{"misspelt field", "request.metod == 'GET'", "undefined field 'metod'", false},
		{"unknown group", "req.method == 'GET'", "undeclared reference to 'req'", false},
		{"not a bool", "request.method", "must evaluate to a bool, not string", false},
		{"wrong type", "source.port == '80'", "no matching overload", false},
		{"syntax", "request.method ==", "Syntax error", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckPredicate(tc.src)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("CheckPredicate(%q) = %v, want no error", tc.src, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("CheckPredicate(%q) = %v, want an error containing %q", tc.src, err, tc.wantErr)
			}
			if got.UsesAuth != tc.usesAuth {
				t.Errorf("CheckPredicate(%q).UsesAuth = %v, want %v", tc.src, got.UsesAuth, tc.usesAuth)
			}
		})
	}
}
