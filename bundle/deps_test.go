package bundle_test

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/depstest"
)

// TestStandardLibraryOnly: any program reads a set with the standard library alone.
func TestStandardLibraryOnly(t *testing.T) {
	depstest.StandardLibraryOnly(t, []string{"."}, "github.com/rlpkit/rlpkit/bundle")
}
