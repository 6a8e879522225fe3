package bundle_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/rlpkit/rlpkit/bundle"
)

// TestReadBounds: a mounted output past a limit on input is refused before
// it is read whole: an index nested too deep, an unsplit file or the parts
// of a file larger than 16 MiB. Written without inputlimittest, which this
// standard-library-only package does not import.
func TestReadBounds(t *testing.T) {
	big := &fstest.MapFile{Data: make([]byte, 16<<20+1)}
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	sum := strings.Repeat("0", 64)
	tests := []struct {
		name string
		fsys fstest.MapFS
		want string
	}{
		{"unsplit file", fstest.MapFS{"limits.yaml": big}, "limits.yaml: the size, more than 16777216 bytes, exceeds the limit of 16777216 bytes (16 MiB)"},
		{"index nested too deep", fstest.MapFS{bundle.IndexFile: {Data: []byte(`{"files": ` + deep + `}`)}}, "bundle: " + bundle.IndexFile + ": line 1: nesting exceeds the limit of 1000 levels"},
		{"parts too large", fstest.MapFS{bundle.IndexFile: {Data: []byte(`{"files": {"limits.yaml": [{"file": "p1", "size": 10000000, "sha256": "` + sum + `"}, {"file": "p2", "size": 10000000, "sha256": "` + sum + `"}]}}`)}},
			"bundle: " + bundle.IndexFile + ": limits.yaml: the size, 20000000 bytes, exceeds the limit of 16777216 bytes (16 MiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bundle.ReadFile(tc.fsys, "limits.yaml")
			if err == nil || err.Error() != tc.want {
				t.Fatalf("ReadFile = %v\nwant %s", err, tc.want)
			}
		})
	}
}
