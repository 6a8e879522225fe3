package descriptor

import (
	"testing"

	"github.com/rlpkit/rlpkit/internal/depstest"
)

// TestStandardLibraryOnly keeps the filter half of the library importable by a proxy-wasm
// filter: descriptor and hostindex may import, transitively, nothing but the standard
// library and rlpkit's standard-library-only leaves (descriptor may import hostindex,
// rlsmsg, fielderr and inputlimit), and both build for GOOS=wasip1 GOARCH=wasm.
func TestStandardLibraryOnly(t *testing.T) {
	depstest.StandardLibraryOnly(t, []string{".", "../hostindex"},
		"github.com/rlpkit/rlpkit/descriptor", "github.com/rlpkit/rlpkit/hostindex",
		"github.com/rlpkit/rlpkit/rlsmsg", "github.com/rlpkit/rlpkit/fielderr",
		"github.com/rlpkit/rlpkit/inputlimit")
}
