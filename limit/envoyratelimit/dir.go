package envoyratelimit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// DirOptions locates configuration files as the reference's runtime
// settings do.
type DirOptions struct {
	// Root is RUNTIME_ROOT, Subdirectory RUNTIME_SUBDIRECTORY and
	// AppDirectory RUNTIME_APPDIRECTORY ("config" when empty).
	Root, Subdirectory, AppDirectory string
	// WatchRoot (RUNTIME_WATCH_ROOT) reads every file under
	// Root/Subdirectory whose key starts with "config."; otherwise only the
	// files under Root/Subdirectory/AppDirectory are read.
	WatchRoot bool
	// IgnoreDotFiles (RUNTIME_IGNOREDOTFILES) skips files and directories
	// whose names start with a dot, such as a ConfigMap's "..data".
	IgnoreDotFiles bool
}

// Dir returns the directory whose files ReadDir reads.
func (o DirOptions) Dir() string {
	base := filepath.Join(o.Root, o.Subdirectory)
	if o.WatchRoot {
		return base
	}
	return filepath.Join(base, o.app())
}

func (o DirOptions) app() string {
	if o.AppDirectory == "" {
		return "config"
	}
	return o.AppDirectory
}

// maxDepth bounds the directory walk, so that a symbolic link loop ends.
const maxDepth = 32

// ReadDir reads the configuration files as the reference finds them: it
// walks the directory (see DirOptions) recursively, following symbolic
// links to files and directories (the layout of a mounted ConfigMap), and
// returns every regular file, whatever its extension, keyed by its path
// relative to Root/Subdirectory with '/' replaced by '.', depth first with
// each directory's entries in lexical order.
// Dot files and directories are read too unless IgnoreDotFiles is set.
func ReadDir(o DirOptions) ([]File, error) {
	base := filepath.Join(o.Root, o.Subdirectory)
	start, prefix := base, ""
	if !o.WatchRoot {
		start, prefix = filepath.Join(base, o.app()), o.app()
	}
	var files []File
	if err := walk(start, prefix, o, 0, &files); err != nil {
		return nil, err
	}
	return files, nil
}

func walk(dir, key string, o DirOptions, depth int, files *[]File) error {
	if depth > maxDepth {
		return fmt.Errorf("ratelimit: %s: directories nested more than %d deep (a symbolic link loop?)", dir, maxDepth)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("ratelimit: reading configuration directory: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if o.IgnoreDotFiles && strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		k := name
		if key != "" {
			k = key + "." + name
		}
		fi, err := os.Stat(path) // follows symbolic links
		if err != nil {
			return fmt.Errorf("ratelimit: reading configuration: %w", err)
		}
		switch {
		case fi.IsDir():
			if err := walk(path, k, o, depth+1, files); err != nil {
				return err
			}
		case fi.Mode().IsRegular():
			if o.WatchRoot && !strings.HasPrefix(k, "config.") {
				continue
			}
			data, err := inputlimit.ReadFile(path)
			if err != nil {
				return fmt.Errorf("ratelimit: reading configuration: %w", err)
			}
			*files = append(*files, File{Key: k, Data: data})
		}
	}
	return nil
}
