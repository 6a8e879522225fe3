package bundle

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/rlpkit/rlpkit/inputlimit"
)

// MismatchError is ReadFile's error for a part that is missing or does not match the digest
// the index gives it: the set is being updated (the kubelet has not refreshed every
// ConfigMap of the volume yet), or a part's ConfigMap is not mounted.
type MismatchError struct {
	// File is the file of the set being read; Part is the part that does not match.
	File string
	Part Part
	// Err says what was found instead: the part's digest, or why it cannot be read.
	Err error
}

// Error names the part, its ConfigMap and what was found.
func (e *MismatchError) Error() string {
	return fmt.Sprintf("bundle: %s: part %s (in ConfigMap %s) %v: the parts do not match the index %s, so the set is being updated or a part's ConfigMap is not mounted", e.File, e.Part.File, e.Part.Object, e.Err, IndexFile)
}

// Unwrap returns what was found.
func (e *MismatchError) Unwrap() error { return e.Err }

// ReadIndex reads and checks the index of the set in fsys. It returns nil and no error when
// fsys holds no index.
func ReadIndex(fsys fs.FS) (*Index, error) {
	data, err := fs.ReadFile(fsys, IndexFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if err := inputlimit.CheckJSON(IndexFile, data); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	var idx Index
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&idx); err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", IndexFile, err)
	}
	for f, parts := range idx.Files {
		if !validName(f) {
			return nil, fmt.Errorf("bundle: %s: files: %q is not a file name", IndexFile, f)
		}
		for i, p := range parts {
			if !validName(p.File) || p.Size < 0 || len(p.SHA256) != sha256.Size*2 {
				return nil, fmt.Errorf("bundle: %s: files[%q][%d]: want a file name, a size and a SHA-256 digest, got %+v", IndexFile, f, i, p)
			}
		}
	}
	return &idx, nil
}

// ReadFile returns the file name of the output mounted in fsys. When fsys holds an index,
// the file is its parts concatenated, each checked against the index: a part missing or
// changed is a *MismatchError, and a file the index does not name is an error. Without an
// index, it is fsys's file name, as it is.
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	idx, err := ReadIndex(fsys)
	if err != nil {
		return nil, err
	}
	if idx == nil {
		return readBounded(fsys, name)
	}
	parts, ok := idx.Files[name]
	if !ok {
		return nil, fmt.Errorf("bundle: %s names no file %s (it names %s)", IndexFile, name, strings.Join(idx.names(), ", "))
	}
	total := int64(0)
	for _, p := range parts {
		total += int64(p.Size)
	}
	if err := inputlimit.CheckSize(name, total); err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", IndexFile, err)
	}
	var out []byte
	for _, p := range parts {
		data, err := readBounded(fsys, p.File)
		if err != nil {
			return nil, &MismatchError{File: name, Part: p, Err: err}
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != p.SHA256 || len(data) != p.Size {
			return nil, &MismatchError{File: name, Part: p, Err: fmt.Errorf("has %d bytes of SHA-256 %x, want %d bytes of %s", len(data), sum, p.Size, p.SHA256)}
		}
		out = append(out, data...)
	}
	return out, nil
}

// names returns the index's file names, sorted.
func (idx *Index) names() []string {
	out := make([]string, 0, len(idx.Files))
	for f := range idx.Files {
		out = append(out, f)
	}
	slices.Sort(out)
	return out
}

// readBounded reads the file name of fsys, refusing one larger than
// inputlimit.MaxBytes without reading it all.
func readBounded(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return inputlimit.ReadAll(f, name)
}
