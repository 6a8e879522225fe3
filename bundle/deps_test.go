package bundle_test

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/depstest"
)

// TestStandardLibraryOnly: any program reads a set with the standard library alone (and
// inputlimit, a standard-library-only leaf).
func TestStandardLibraryOnly(t *testing.T) {
	depstest.StandardLibraryOnly(t, []string{"."}, "github.com/rlpkit/rlpkit/bundle", "github.com/rlpkit/rlpkit/inputlimit")
}
