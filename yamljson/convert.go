package yamljson

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"

	yaml "go.yaml.in/yaml/v3"
)

// Document is one YAML document of a stream, converted to JSON.
//
// Besides the JSON, a Document keeps the converted tree with its lines, for
// Line. It is not changed after Convert returns it; its methods are safe for
// concurrent use. The zero Document has no JSON and reports line 0 for every
// path.
//
// The start line is the field StartLine, not Line, because Go does not let a
// field and a method share a name and Line is the method that finds a path.
type Document struct {
	Index     int    // position in the stream, 0-based, counting every document including empty ones
	StartLine int    // 1-based line where the document starts; Line("") returns it too
	JSON      []byte // the document as compact JSON; "null" for an empty document

	root  *value // the converted tree, with the lines Line(path) reports
	empty bool
}

// Empty reports whether the document holds nothing: only comments, or nothing
// at all between two "---". A document holding an explicit null ("~", "null")
// is not empty, though its JSON is "null" too.
func (d *Document) Empty() bool {
	return d.empty
}

// Convert converts every document of a YAML stream (JSON is YAML too) to JSON,
// with the YAML 1.2 core schema: "yes", "no", "on" and "off" stay strings.
// See the package documentation for the rules.
//
// It reports every problem it finds, not only the first: problems in one
// document do not stop the conversion of the next, though a syntax error ends
// the stream. The error is an *[Error] or, for several, errors.Join of them,
// in stream order. On error Convert returns no documents.
//
// A stream with no documents (empty, or only comments) gives none and no
// error.
func Convert(data []byte) ([]Document, error) {
	if err := CheckSize(data); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	b := &builder{anchors: make(map[*yaml.Node]*anchored)}
	var docs []Document
	seen := 0 // documents read, including one that failed to parse
	for {
		var n yaml.Node
		err := decode(dec, &n)
		if errors.Is(err, io.EOF) {
			break
		}
		seen++
		if err != nil {
			e := parserError(len(docs), err)
			locateSyntaxError(data, e)
			b.errs = append(b.errs, e)
			break
		}
		b.doc, b.stopped = len(docs), false
		errs := len(b.errs)
		d := b.document(&n)
		if len(b.errs) == errs {
			// Only now, with the limits checked, is the size safe to allocate.
			d.JSON = appendValue(make([]byte, 0, d.root.size), d.root)
		}
		docs = append(docs, d)
	}
	if len(b.errs) == 0 {
		return docs, nil
	}
	slices.SortStableFunc(b.errs, func(x, y *Error) int {
		return cmp.Or(cmp.Compare(x.Doc, y.Doc), cmp.Compare(x.Line, y.Line))
	})
	all := make([]error, len(b.errs))
	for i, e := range b.errs {
		e.multi = seen > 1
		all[i] = e
	}
	if len(all) == 1 {
		return nil, all[0]
	}
	return nil, errors.Join(all...)
}

// decode reads the next document. It turns a panic of the YAML parser into an
// error, so that no input can crash the caller.
func decode(dec *yaml.Decoder, n *yaml.Node) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: parser failed: %v", r)
		}
	}()
	return dec.Decode(n)
}

// document converts one parsed document, all but writing its JSON.
func (b *builder) document(n *yaml.Node) Document {
	d := Document{Index: b.doc, StartLine: n.Line}
	if n.Kind != yaml.DocumentNode || len(n.Content) == 0 {
		d.root, d.empty = placeholder(), true
		return d
	}
	r := n.Content[0]
	d.empty = r.Kind == yaml.ScalarNode && r.Value == "" && r.Style == 0 && r.Anchor == "" && r.ShortTag() == tagNull
	d.root, _ = b.visit(r)
	return d
}

// ToJSON converts a stream that holds exactly one non-empty document, however
// many empty ones surround it, and returns its JSON. A stream with no
// non-empty document, or with two, is an error, an *[Error] like those of
// Convert.
func ToJSON(data []byte) ([]byte, error) {
	docs, err := Convert(data)
	if err != nil {
		return nil, err
	}
	var found *Document
	for i := range docs {
		if docs[i].Empty() {
			continue
		}
		if found != nil {
			return nil, &Error{Doc: docs[i].Index, Line: docs[i].StartLine, Msg: fmt.Sprintf("a second document, after document %d; want exactly one", found.Index), multi: true}
		}
		found = &docs[i]
	}
	if found == nil {
		return nil, &Error{Msg: "no document; want exactly one"}
	}
	return found.JSON, nil
}
