package serving

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Fingerprint describes the files at paths as the file system reports them,
// for a Watcher to compare: every file's path, size, mode and modification
// time, directories walked recursively. Symbolic links are followed to what
// they name (so that a Kubernetes ConfigMap volume, which swaps a link,
// counts as changed) but not walked into. A path that cannot be walked or
// described, such as a missing input or a dangling link, is described by its
// error. Nothing is read: two equal fingerprints mean the files are, in all
// likelihood, unchanged.
//
// With dirs, every directory counts too, by its own size, mode and
// modification time; the latter changes whenever an entry is added to it or
// removed from it, a file or not.
func Fingerprint(dirs bool, paths ...string) string {
	var b strings.Builder
	for _, p := range paths {
		filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && !dirs {
				return nil
			}
			var fi fs.FileInfo
			if err == nil {
				fi, err = os.Stat(path)
			}
			if err != nil {
				fmt.Fprintf(&b, "%q: %v\n", path, err)
				return nil
			}
			fmt.Fprintf(&b, "%q %d %v %d\n", path, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
			return nil
		})
	}
	return b.String()
}
