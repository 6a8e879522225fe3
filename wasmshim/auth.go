package wasmshim

import (
	"regexp"
	"slices"
	"strings"
)

// authRef matches a dotted read of the auth attribute group (auth.identity.userid), and
// a following "(" when the last name is a method called on it.
var authRef = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.])auth((?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\(?)`)

// quoted matches a CEL string literal in single or double quotes.
var quoted = regexp.MustCompile(`'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"`)

// AuthAttributes returns the auth.* attributes an expression reads by dotted name
// ("identity.userid"), in order of appearance, each once; a method called on one
// (auth.identity.userid.startsWith) is not part of its name, and text in string
// literals is not read. Reads by index (auth['identity']) are not seen.
func AuthAttributes(expr string) []string {
	var out []string
	for _, m := range authRef.FindAllStringSubmatch(quoted.ReplaceAllString(expr, "''"), -1) {
		name := m[1][1:]
		if m[2] != "" {
			name = name[:max(strings.LastIndexByte(name, '.'), 0)]
		}
		if name == "" {
			continue
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// MissingAuth returns the first auth.* attribute an expression reads that auth (the
// request's auth attributes, nested as wasm-shim reads them) lacks, "" when it has them
// all.
func MissingAuth(expr string, auth map[string]any) string {
	for _, name := range AuthAttributes(expr) {
		if !hasPath(auth, strings.Split(name, ".")) {
			return name
		}
	}
	return ""
}

// hasPath reports whether m holds a value at the path of keys.
func hasPath(m map[string]any, path []string) bool {
	v, ok := m[path[0]]
	if !ok || len(path) == 1 {
		return ok
	}
	sub, isMap := v.(map[string]any)
	return isMap && hasPath(sub, path[1:])
}

// missingAuthWhy says why an expression failed when it reads an auth.* attribute the
// request lacks, "" otherwise.
func missingAuthWhy(expr string, act map[string]any) string {
	auth, _ := act["auth"].(map[string]any)
	if name := MissingAuth(expr, auth); name != "" {
		return "the request has no auth." + name + ", an attribute the path's AuthPolicy would set"
	}
	return ""
}

// HasAuth reports whether auth (a request's auth attributes, nested) holds the attribute
// at path, a dotted name split at its dots (["identity", "userid"]).
func HasAuth(auth map[string]any, path []string) bool {
	return len(path) > 0 && hasPath(auth, path)
}
