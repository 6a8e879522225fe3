package rlsmsg

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/depstest"
)

// TestStandardLibraryOnly keeps the package free of the protobuf runtime,
// for the proxy-wasm filter: it may import nothing but the standard
// library, and it builds for GOOS=wasip1 GOARCH=wasm.
func TestStandardLibraryOnly(t *testing.T) {
	depstest.StandardLibraryOnly(t, []string{"."}, "github.com/rlpkit/rlpkit/rlsmsg")
}
