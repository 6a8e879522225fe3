package descriptor

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// checkJSONPointer returns what is wrong with an RFC 6901 pointer used as a cost source, or
// "": it must start with "/" (the whole document is never a cost) and every "~" must be
// followed by "0" or "1".
func checkJSONPointer(p string) string {
	if !strings.HasPrefix(p, "/") {
		return `must be a JSON pointer starting with "/" (e.g. "/usage/total_tokens"), got ` + strconv.Quote(p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return `"~" must be followed by "0" or "1" in a JSON pointer, got ` + strconv.Quote(p)
		}
	}
	return ""
}

// ErrNoUsage is returned by UsageFromBody when the body holds no usable cost.
var ErrNoUsage = errors.New("no usage in the response body")

// UsageFromBody reads the cost at pointer in a response body: the body as one JSON document,
// or, when contentType is text/event-stream, the JSON of the last "data:" event before
// "data: [DONE]" (the last event when there is no [DONE]). The value must be a non-negative
// integer (a JSON number with no fraction). Anything else returns an error wrapping
// ErrNoUsage and saying why.
func UsageFromBody(body []byte, contentType, pointer string) (uint64, error) {
	if mt, _, _ := strings.Cut(contentType, ";"); strings.EqualFold(strings.TrimSpace(mt), "text/event-stream") {
		data, ok := lastEventData(body)
		if !ok {
			return 0, errors.Join(ErrNoUsage, errors.New("no data event before [DONE]"))
		}
		body = data
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return 0, errors.Join(ErrNoUsage, errors.New("the body is not JSON: "+err.Error()))
	}
	if dec.More() {
		return 0, errors.Join(ErrNoUsage, errors.New("the body is not one JSON document"))
	}
	v, ok := lookupJSONPointer(v, pointer)
	if !ok {
		return 0, errors.Join(ErrNoUsage, errors.New("nothing at "+pointer))
	}
	n, isNum := v.(json.Number)
	if !isNum {
		return 0, errors.Join(ErrNoUsage, errors.New(pointer+" is "+kindOf(v)+", not a number"))
	}
	u, err := strconv.ParseUint(string(n), 10, 64)
	if err != nil {
		return 0, errors.Join(ErrNoUsage, errors.New(pointer+" is "+string(n)+", not a non-negative integer"))
	}
	return u, nil
}

// lookupJSONPointer walks v along an RFC 6901 pointer.
func lookupJSONPointer(v any, pointer string) (any, bool) {
	if pointer == "" {
		return v, true
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// lastEventData returns the data of the last server-sent event before "data: [DONE]", its
// "data:" lines joined with "\n" as the SSE specification says.
func lastEventData(body []byte) ([]byte, bool) {
	var last, cur []byte
	var have, inEvent bool
	flush := func() {
		if inEvent {
			last, have = cur, true
		}
		cur, inEvent = nil, false
	}
	for line := range bytes.Lines(body) {
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			flush()
			continue
		}
		rest, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue // event:, id:, retry: and comments carry no data
		}
		rest = bytes.TrimPrefix(rest, []byte(" "))
		if string(rest) == "[DONE]" {
			cur, inEvent = nil, false
			return last, have
		}
		if inEvent {
			cur = append(append(cur, '\n'), rest...)
		} else {
			cur, inEvent = append([]byte(nil), rest...), true
		}
	}
	flush()
	return last, have
}
