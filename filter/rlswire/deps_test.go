package rlswire

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/depstest"
)

// TestStandardLibraryOnly keeps the codec free of the protobuf runtime: it may import nothing
// but the standard library and rlsmsg (itself standard library only), and it builds for
// GOOS=wasip1 GOARCH=wasm.
func TestStandardLibraryOnly(t *testing.T) {
	depstest.StandardLibraryOnly(t, []string{"."}, "github.com/rlpkit/rlpkit/filter/rlswire", "github.com/rlpkit/rlpkit/rlsmsg")
}
