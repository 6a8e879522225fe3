package wasmshim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// bodyCall matches a data expression that is one call of responseBodyJSON with a literal
// JSON pointer, the form kuadrant-operator writes for a TokenRateLimitPolicy's report
// (responseBodyJSON("/usage/total_tokens")).
var bodyCall = regexp.MustCompile(`^\s*responseBodyJSON\(\s*"((?:[^"\\]|\\.)*)"\s*\)\s*$`)

// responseValue evaluates expr, a responseBodyJSON call with a literal pointer, on body:
// the value at the pointer as a string (a number or a string as written, other JSON as
// its encoding). ok is false when expr is not such a call; err says why the body has no
// such value.
func responseValue(expr string, body []byte) (value string, ok bool, err error) {
	m := bodyCall.FindStringSubmatch(expr)
	if m == nil {
		return "", false, nil
	}
	ptr, err := strconv.Unquote(`"` + m[1] + `"`)
	if err != nil {
		return "", true, fmt.Errorf("the pointer %s is not a string literal", m[1])
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", true, fmt.Errorf("the response body is not JSON: %v", err)
	}
	if ptr != "" && !strings.HasPrefix(ptr, "/") {
		return "", true, fmt.Errorf("JSON pointer %q does not start with /", ptr)
	}
	if ptr != "" {
		for _, tok := range strings.Split(ptr[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch x := v.(type) {
			case map[string]any:
				next, found := x[tok]
				if !found {
					return "", true, fmt.Errorf("the response body has no %s", ptr)
				}
				v = next
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(x) {
					return "", true, fmt.Errorf("the response body has no %s", ptr)
				}
				v = x[i]
			default:
				return "", true, fmt.Errorf("the response body has no %s", ptr)
			}
		}
	}
	switch x := v.(type) {
	case json.Number:
		return x.String(), true, nil
	case string:
		return x, true, nil
	}
	b, err := json.Marshal(v)
	return string(b), true, err
}
