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

// TestCheckExpression: a counter is type-checked as a predicate is, whatever its type, so
// that a misspelt attribute or an unquoted header name is an error.
func TestCheckExpression(t *testing.T) {
	tests := []struct {
		name, src, wantErr string // wantErr: substring; empty: valid
	}{
		{"header", "request.headers['x-user']", ""},
		{"address", "source.remote_address", ""},
		{"auth", "auth.identity.userid", ""},
		{"port", "destination.port", ""},
		{"query", "queryMap(request.query)['page']", ""},
		{"misspelt field", "request.hedaers['x-user']", "undefined field 'hedaers'"},
		{"unquoted header", "request.headers.x-user", "undeclared reference to 'user'"},
		{"unknown group", "req.path", "undeclared reference to 'req'"},
		{"syntax", "request.headers[", "Syntax error"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckExpression(tc.src)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("CheckExpression(%q) = %v, want no error", tc.src, err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("CheckExpression(%q) = %v, want an error containing %q", tc.src, err, tc.wantErr)
			}
		})
	}
}
