package httplimit

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
)

// maxKeyValue is the longest key value stored as it is; longer ones are
// stored as their SHA-256, so that a client sending huge header values cannot
// make every stored counter huge.
const maxKeyValue = 128

// The bounds net/http and net/url apply by default (GODEBUG
// httpcookiemaxnum and urlmaxqueryparams): above them a handler sees no
// cookies or no query parameters at all, and neither does the limiter.
const (
	maxCookies     = 3000
	maxQueryParams = 10000
)

// appendKeyValue appends the request's key value, as the tag selects, to
// buf. It reports false when the value is missing or empty: the request is
// not limited.
func (l *Limiter) appendKeyValue(buf []byte, r *http.Request) ([]byte, bool) {
	var v string
	switch l.cfg.Tag {
	case TagIP:
		addr, raw, ok := clientAddr(r.RemoteAddr, r.Header["X-Forwarded-For"], l.opts.trusted)
		if !ok {
			return buf, false
		}
		if addr.IsValid() {
			return addr.AppendTo(append(buf, '=')), true
		}
		v = raw
	case TagHeader:
		if vs := r.Header[l.headerKey]; len(vs) > 0 {
			v = vs[0]
		}
	case TagCookie:
		if l.cookieNameOK {
			v = cookieValue(r.Header["Cookie"], l.cfg.Key)
		}
	case TagQuery:
		if r.URL != nil {
			v = queryValue(r.URL.RawQuery, l.cfg.Key)
		}
	}
	if v == "" {
		return buf, false
	}
	return appendValue(buf, v), true
}

// appendValue appends v, or "#" and the hex SHA-256 of v when it is longer
// than maxKeyValue or holds a brace. Short values are prefixed "=", so that
// no value can collide with a hashed one. A brace would let the client pick
// the key's Redis Cluster hash tag (the bytes between a key's first '{' and
// the next '}'), and so the node its counters load.
func appendValue(buf []byte, v string) []byte {
	if len(v) <= maxKeyValue && strings.IndexAny(v, "{}") < 0 {
		return append(append(buf, '='), v...)
	}
	sum := sha256.Sum256([]byte(v))
	return hex.AppendEncode(append(buf, '#'), sum[:])
}

// keyPrefix is the start of every counter key of a limiter: unambiguous
// (lengths prefix the free-form parts) and different whenever the name, the
// tag, the key or the interval differs, so that a changed plugin starts
// fresh counters in a shared store instead of misreading old ones.
func keyPrefix(name string, c Config) string {
	var b []byte
	b = append(b, "httplimit:"...)
	b = strconv.AppendInt(b, int64(len(name)), 10)
	b = append(b, ':')
	b = append(b, name...)
	b = append(b, ':')
	b = append(b, c.Type...)
	b = append(b, ':')
	b = append(b, c.Tag...)
	if c.Tag != TagIP {
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(len(c.Key)), 10)
		b = append(b, ':')
		b = append(b, c.Key...)
	}
	if c.Type == TypeRate {
		b = append(b, ':')
		b = strconv.AppendInt(b, c.Interval.Microseconds(), 10)
		b = append(b, "us"...)
	}
	return string(append(b, ':'))
}

// cookieValue returns the value of the first valid cookie named name in the
// Cookie header lines, exactly as (*http.Request).Cookie would, without
// allocating: surrounding double quotes are removed, and a cookie whose
// value has a byte a cookie value may not hold is skipped.
func cookieValue(lines []string, name string) string {
	if len(lines) == 0 {
		return ""
	}
	n := 0
	for _, line := range lines {
		n += strings.Count(line, ";") + 1
	}
	if n > maxCookies {
		return ""
	}
	for _, line := range lines {
		line = textproto.TrimString(line)
		for line != "" {
			var part string
			part, line, _ = strings.Cut(line, ";")
			part = textproto.TrimString(part)
			k, v, _ := strings.Cut(part, "=")
			if textproto.TrimString(k) != name {
				continue
			}
			if len(v) > 1 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			if validCookieValue(v) {
				return v
			}
		}
	}
	return ""
}

func validCookieValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < 0x20 || b >= 0x7f || b == '"' || b == ';' || b == '\\' {
			return false
		}
	}
	return true
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2): the
// only names net/http finds cookies by.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// queryValue returns the first value of the query parameter name in
// rawQuery, exactly as url.Values.Get on (*url.URL).Query would: a pair with
// a semicolon or a bad escape is skipped. It allocates only to unescape a
// value that needs it.
func queryValue(rawQuery, name string) string {
	if rawQuery == "" || strings.Count(rawQuery, "&")+1 > maxQueryParams {
		return ""
	}
	for q := rawQuery; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if pair == "" || strings.IndexByte(pair, ';') >= 0 {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if !queryKeyIs(k, name) {
			continue
		}
		if strings.IndexByte(v, '%') < 0 && strings.IndexByte(v, '+') < 0 {
			return v
		}
		if u, err := url.QueryUnescape(v); err == nil {
			return u
		}
	}
	return ""
}

// queryKeyIs reports whether the escaped query key k unescapes to name.
func queryKeyIs(k, name string) bool {
	if strings.IndexByte(k, '%') < 0 && strings.IndexByte(k, '+') < 0 {
		return k == name
	}
	u, err := url.QueryUnescape(k)
	return err == nil && u == name
}
