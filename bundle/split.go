package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// Index names the parts of each file of a split set.
type Index struct {
	// Files are the files of the set by name, each with its parts in order: the file is
	// their concatenation.
	Files map[string][]Part `json:"files"`
}

// Part is one part of a file of a split set.
type Part struct {
	// File is the part's name: its file name in a mounted set, its key in its object.
	File string `json:"file"`
	// Object is the name of the object (a ConfigMap) holding the part.
	Object string `json:"object"`
	// Size is the part's length in bytes.
	Size int `json:"size"`
	// SHA256 is the hexadecimal SHA-256 digest of the part.
	SHA256 string `json:"sha256"`
}

// Object is what one object of a split set holds: part files by name.
type Object struct {
	// Name is the object's name.
	Name string
	// Files are the part files the object holds, by name.
	Files map[string]string
}

// Size returns the bytes of data the object holds, as the API server counts a ConfigMap's
// data: the lengths of its values.
func (o Object) Size() int {
	n := 0
	for _, v := range o.Files {
		n += len(v)
	}
	return n
}

// minPart is the smallest part Split cuts to fill the end of an object: below it, the part
// starts the next object instead.
const minPart = 4096

// Split cuts files into parts and packs them, in the order of the files' names, into
// objects of at most max bytes of data each, named name(1), name(2), ...; it returns the
// index of the set and the objects. The same files give the same index and objects. A part
// of "limits.yaml" is named "limits.part-N.yaml", N counting from 1. max must be at least
// 1024.
func Split(files map[string]string, max int, name func(i int) string) (Index, []Object, error) {
	if max < 1024 {
		return Index{}, nil, fmt.Errorf("bundle: a part of at most %d bytes is too small: want 1024 or more", max)
	}
	idx := Index{Files: map[string][]Part{}}
	var objs []Object
	cur := -1
	room := 0
	next := func() {
		objs = append(objs, Object{Name: name(len(objs) + 1), Files: map[string]string{}})
		cur, room = len(objs)-1, max
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	slices.Sort(names)
	for _, f := range names {
		if !validName(f) {
			return Index{}, nil, fmt.Errorf("bundle: file name %q: want a name without a path, other than %s", f, IndexFile)
		}
		left := files[f]
		idx.Files[f] = []Part{}
		for n := 1; len(left) > 0 || n == 1; n++ {
			if cur < 0 || len(left) > room && room < min(minPart, max) {
				next()
			}
			piece := left[:cut(left, room)]
			left = left[len(piece):]
			pf := partName(f, n)
			sum := sha256.Sum256([]byte(piece))
			idx.Files[f] = append(idx.Files[f], Part{File: pf, Object: objs[cur].Name, Size: len(piece), SHA256: hex.EncodeToString(sum[:])})
			objs[cur].Files[pf] = piece
			room -= len(piece)
			if len(left) == 0 {
				break
			}
		}
	}
	return idx, objs, nil
}

// cut returns where to end a part of s that holds at most room bytes: all of s if it fits,
// else after the last newline within room, else at the last character boundary within it.
func cut(s string, room int) int {
	if len(s) <= room {
		return len(s)
	}
	if i := strings.LastIndexByte(s[:room], '\n'); i >= 0 {
		return i + 1
	}
	i := room
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// partName returns the name of part n of file f: "limits.yaml" gives "limits.part-1.yaml".
func partName(f string, n int) string {
	ext := path.Ext(f)
	return fmt.Sprintf("%s.part-%d%s", strings.TrimSuffix(f, ext), n, ext)
}

// validName says whether f can name a file of a set: a plain file name.
func validName(f string) bool {
	return f != "" && f != IndexFile && f != "." && f != ".." && !strings.ContainsAny(f, `/\`)
}

// Encode returns the index as indented JSON, ending in a newline.
func (idx Index) Encode() string {
	b, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		panic(err) // strings and ints only: cannot fail
	}
	return string(b) + "\n"
}
