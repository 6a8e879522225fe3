package yamljson

import "strconv"

// Line returns the 1-based line of the value at path, written as
// k8s.io/apimachinery's field.Path prints it: "spec.default.rateLimits[0].seconds",
// with map keys that hold dots in brackets: "metadata.labels[app.kubernetes.io/name]".
// A ".key" segment always names a mapping key; a "[...]" segment names a
// sequence element when it is a decimal index into a sequence, and a mapping
// key otherwise. A leading "." or a path that starts with "[" are accepted.
//
// For a mapping entry the line is that of its key; for a sequence element, the
// line of the element (or of the alias standing for it). Values that aliases
// or merge keys brought in report the lines where they are written, under the
// anchor. When the path is not in the document, Line returns the line of the
// deepest ancestor that is; for "" it returns the document's StartLine.
func (d *Document) Line(path string) int {
	line, v := d.StartLine, d.root
	rest := path
	for rest != "" && v != nil {
		seg, bracket, next, ok := nextSegment(rest)
		if !ok {
			break
		}
		l, c, found := v.child(seg, bracket)
		if !found {
			break
		}
		line, v, rest = l, c, next
	}
	return line
}

// nextSegment splits the first segment off a field path. bracket says it was
// written "[seg]" rather than ".seg". A bracketed segment ends at the first
// "]" followed by the end, "." or "[", so keys may hold "]" or "[".
func nextSegment(path string) (seg string, bracket bool, rest string, ok bool) {
	if path[0] == '[' {
		for j := 1; j < len(path); j++ {
			if path[j] == ']' && (j+1 == len(path) || path[j+1] == '.' || path[j+1] == '[') {
				return path[1:j], true, path[j+1:], true
			}
		}
		return "", false, "", false
	}
	if path[0] == '.' {
		path = path[1:]
	}
	end := len(path)
	for j := 0; j < len(path); j++ {
		if path[j] == '.' || path[j] == '[' {
			end = j
			break
		}
	}
	if end == 0 {
		return "", false, "", false
	}
	return path[:end], false, path[end:], true
}

// child finds a path segment in v: the line where it is written and its value.
func (v *value) child(seg string, bracket bool) (line int, c *value, ok bool) {
	switch v.kind {
	case mapKind:
		if i := v.find(seg); i >= 0 {
			return v.fields[i].line, v.fields[i].v, true
		}
	case seqKind:
		if !bracket {
			return 0, nil, false
		}
		for j := 0; j < len(seg); j++ {
			if seg[j] < '0' || seg[j] > '9' {
				return 0, nil, false
			}
		}
		i, err := strconv.Atoi(seg)
		if err != nil || i >= len(v.items) {
			return 0, nil, false
		}
		return v.items[i].line, v.items[i].v, true
	}
	return 0, nil, false
}
