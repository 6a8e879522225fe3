package wasmshim

import (
	"errors"
	"strings"
	"testing"
)

// TestEvalFailureBody: a data expression reading a body says so rather than the CEL
// error, since the body is what is missing; any other keeps its error.
func TestEvalFailureBody(t *testing.T) {
	got := evalFailure(`responseBodyJSON("/usage/total_tokens")`, errors.New("no such overload"))
	if !strings.HasPrefix(got, "responseBodyJSON reads a body") {
		t.Errorf("evalFailure(responseBodyJSON) = %q", got)
	}
	if got := evalFailure("request.headers['x']", errors.New("no such key: x")); got != "no such key: x" {
		t.Errorf("evalFailure(other) = %q, want the error", got)
	}
}
