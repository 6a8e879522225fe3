package httplimit

import (
	"errors"
	"testing"

	"github.com/rlpkit/rlpkit/fielderr"
)

// TestErrorsAs: a configuration's problems are *fielderr.Error values of
// this package, found by errors.As.
func TestErrorsAs(t *testing.T) {
	_, err := Load([]byte("[plugins.perIP]\ncategory = \"limit\"\nmax = -1\n"))
	var fe *fielderr.Error
	if !errors.As(err, &fe) {
		t.Fatalf("errors.As(%v, *fielderr.Error) = false, want true", err)
	}
	if fe.Pkg != "httplimit" || fe.Field != "plugins.perIP.max" {
		t.Errorf("problem = %#v, want httplimit's plugins.perIP.max", fe)
	}
}
