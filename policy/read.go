package policy

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// Read reads every input named in paths, as Decode reads one: files, directories
// (recursively, every *.yaml, *.yml and *.json in lexical order) and "-" for stdin. It
// returns all the objects read, with a Notice for every file it skipped, and, when anything
// is wrong, Errors naming every problem of every input; duplicate objects across inputs are
// problems too.
func Read(paths []string, stdin io.Reader) (*Set, error) {
	r := newReader()
	for _, p := range paths {
		if p == "-" {
			if stdin == nil {
				r.fail(Source{File: "-"}, "", "", "no standard input to read")
				continue
			}
			data, err := inputlimit.ReadAll(stdin, "-")
			if err != nil {
				r.fail(Source{File: "-"}, "", "", readError(err))
				continue
			}
			r.add("-", data)
			continue
		}
		files, err := InputFiles(p)
		if err != nil {
			r.failFrom(Source{File: p}, "", "", trimPathError(err), err)
			continue
		}
		for _, f := range files {
			data, err := inputlimit.ReadFile(f)
			if err != nil {
				r.failFrom(Source{File: f}, "", "", readError(err), err)
				continue
			}
			r.add(f, data)
		}
	}
	return r.result()
}

// readError is the message of a failed read, without the file's name,
// which the caller's Source gives.
func readError(err error) string {
	if le, ok := err.(*inputlimit.Error); ok {
		return le.Detail()
	}
	return trimPathError(err)
}

// InputFiles returns the files Read reads of the input p: p itself when it is not a
// directory, else every manifest (IsManifest) under the directory p, in lexical order.
func InputFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && IsManifest(path) {
			files = append(files, path)
		}
		return nil
	})
	slices.Sort(files)
	return files, err
}

// IsManifest reports whether a file under a directory input is read: a *.yaml, *.yml or
// *.json file, whatever the case of its extension.
func IsManifest(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// trimPathError drops the path from an *fs.PathError: the Source names the file already.
func trimPathError(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
