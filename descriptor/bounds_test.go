package descriptor_test

import (
	"strings"
	"testing"

	"github.com/rlpkit/rlpkit/descriptor"
)

// TestDecodeBounds: a PluginConfig past a limit on input (nesting, size;
// JSON has no aliases) is refused before decoding, with the limit. The
// values are written here rather than with inputlimittest, which this
// standard-library-only package does not import.
func TestDecodeBounds(t *testing.T) {
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	tests := []struct{ name, in, want string }{
		{"nesting", "{\"extensions\":\n" + deep + "}", "descriptor: line 2: nesting exceeds the limit of 1000 levels"},
		{"size", `{"x": "` + strings.Repeat("x", 16<<20) + `"}`, "descriptor: the size, 16777225 bytes, exceeds the limit of 16777216 bytes (16 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := descriptor.Decode([]byte(tc.in))
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Decode = %.300v\nwant %s", err, tc.want)
			}
		})
	}
}
