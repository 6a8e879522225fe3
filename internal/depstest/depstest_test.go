package depstest

import "testing"

// recorder is a testing.TB that keeps the failures instead of reporting
// them.
type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Errorf(string, ...any) { r.errors++ }

// TestStandardLibraryOnly: this package passes, and fails when the
// standard library is not all it may import besides itself.
func TestStandardLibraryOnly(t *testing.T) {
	StandardLibraryOnly(t, []string{"."}, "github.com/rlpkit/rlpkit/internal/depstest")
	r := &recorder{TB: t}
	StandardLibraryOnly(r, []string{"."})
	if r.errors != 1 {
		t.Errorf("with nothing allowed: %d errors, want 1 (the package itself)", r.errors)
	}
}
