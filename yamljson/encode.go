package yamljson

import "unicode/utf8"

// appendValue appends v as compact JSON.
func appendValue(dst []byte, v *value) []byte {
	switch v.kind {
	case seqKind:
		dst = append(dst, '[')
		for i, it := range v.items {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, it.v)
		}
		return append(dst, ']')
	case mapKind:
		dst = append(dst, '{')
		for i, f := range v.fields {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, f.key)
			dst = append(dst, ':')
			dst = appendValue(dst, f.v)
		}
		return append(dst, '}')
	}
	return append(dst, v.text...)
}

const hexDigits = "0123456789abcdef"

// needsEscape reports whether r is escaped inside a JSON string. Beyond what
// JSON requires (quote, backslash, controls below U+0020), it escapes what YAML
// forbids or folds inside a quoted scalar (DEL, C1 controls, NEL, LS, PS, BOM,
// U+FFFE, U+FFFF), so that the output also reads back as YAML with the same
// value.
func needsEscape(r rune) bool {
	return r < 0x20 || r == '"' || r == '\\' || 0x7f <= r && r <= 0x9f ||
		r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff
}

// appendEscape appends the escape for a rune needsEscape accepts.
func appendEscape(dst []byte, r rune) []byte {
	switch r {
	case '"', '\\':
		return append(dst, '\\', byte(r))
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// escapeLen is len(appendEscape(nil, r)).
func escapeLen(r rune) int64 {
	switch r {
	case '"', '\\', '\n', '\r', '\t', '\b', '\f':
		return 2
	}
	return 6
}

// appendString appends s as a JSON string. Bytes that are not UTF-8 become
// U+FFFD, written as the character itself.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case needsEscape(r):
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, r)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// stringLen is len(appendString(nil, s)), counted without writing.
func stringLen(s string) int64 {
	n := int64(2)
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		switch {
		case r == utf8.RuneError && size == 1:
			n += int64(utf8.RuneLen(utf8.RuneError))
		case needsEscape(r):
			n += escapeLen(r)
		default:
			n += int64(size)
		}
		i += size
	}
	return n
}

// quote returns s as a JSON string.
func quote(s string) string {
	return string(appendString(make([]byte, 0, len(s)+2), s))
}
