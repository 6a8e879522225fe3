package limitador

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rlpkit/rlpkit/fielderr"
	"github.com/rlpkit/rlpkit/inputlimit"
	"github.com/rlpkit/rlpkit/limit/counter"
)

// DecodeLimits reads a list of limits in limitador's file format from JSON:
//
//	[{"namespace": "ns", "max_value": 10, "seconds": 60,
//	  "conditions": ["method == 'GET'"], "variables": ["user"],
//	  "name": "optional", "id": "optional", "algorithm": "token_bucket"}]
//
// Decoding is strict: an unknown or repeated field, a value of the wrong
// type and every validation problem (see ValidateLimits) is reported, all of
// them at once, as a fielderr.List with paths such as "[3].max_vaule: unknown
// field". namespace, max_value and seconds are required; conditions and
// variables default to empty. A JSON null is an empty list. Input larger
// than 16 MiB or nested more than 1,000 deep is refused before decoding
// (package inputlimit).
//
// YAML limits files are converted to JSON by the caller first (rlpkit uses
// its yamljson package); this package does not read YAML.
func DecodeLimits(jsonData []byte) ([]Limit, error) {
	if err := inputlimit.CheckJSON("", jsonData); err != nil {
		return nil, fielderr.List{{Pkg: pkg, Detail: err.Error()}}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(jsonData, &items); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field == "" {
			return nil, fielderr.List{{Pkg: pkg, Detail: "limits must be a JSON list"}}
		}
		return nil, fielderr.List{{Pkg: pkg, Detail: "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")}}
	}
	var errs fielderr.List
	failed := &decodeFailures{fields: map[string]bool{}, items: map[int]bool{}, whole: map[int]bool{}}
	limits := make([]Limit, len(items))
	for i, item := range items {
		path := "[" + strconv.Itoa(i) + "]"
		n := len(errs)
		decodeLimit(item, path, &limits[i], &errs)
		for _, e := range errs[n:] {
			failed.fields[fieldPath(e.Field)] = true
			failed.items[i] = true
			failed.whole[i] = failed.whole[i] || e.Field == path
		}
	}
	_, verrs := compileLimits(limits, failed)
	errs = append(errs, verrs...)
	if len(errs) > 0 {
		sortByIndex(errs)
		return nil, errs
	}
	return limits, nil
}

// decodeLimit decodes one list item into l, reporting problems under path.
func decodeLimit(item json.RawMessage, path string, l *Limit, errs *fielderr.List) {
	dec := json.NewDecoder(bytes.NewReader(item))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		addError(errs, path, "must be an object")
		return
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			addError(errs, path, "invalid JSON: "+err.Error())
			return
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			addError(errs, path, "invalid JSON: "+err.Error())
			return
		}
		fpath := path + "." + key
		if seen[key] {
			addError(errs, fpath, "repeated field")
			continue
		}
		seen[key] = true
		switch key {
		case "namespace":
			decodeString(raw, fpath, &l.Namespace, errs)
		case "name":
			decodeString(raw, fpath, &l.Name, errs)
		case "id":
			decodeString(raw, fpath, &l.ID, errs)
		case "max_value":
			if v, ok := decodeUint32(raw, fpath, errs); ok {
				l.MaxValue = v
			}
		case "seconds":
			if v, ok := decodeUint32(raw, fpath, errs); ok {
				l.Seconds = v
			}
		case "conditions":
			l.Conditions = decodeStrings(raw, fpath, errs)
		case "variables":
			l.Variables = decodeStrings(raw, fpath, errs)
		case "algorithm":
			var s string
			if decodeString(raw, fpath, &s, errs) {
				a, err := counter.ParseAlgorithm(s)
				if err != nil {
					addError(errs, fpath, strings.TrimPrefix(err.Error(), "counter: "))
				}
				l.Algorithm = a
			}
		default:
			addError(errs, fpath, "unknown field")
		}
	}
	for _, required := range []string{"namespace", "max_value", "seconds"} {
		if !seen[required] {
			addError(errs, path+"."+required, "required field is missing")
		}
	}
}

func decodeString(raw json.RawMessage, path string, dst *string, errs *fielderr.List) bool {
	if err := json.Unmarshal(raw, dst); err != nil || bytes.Equal(raw, []byte("null")) {
		addError(errs, path, "must be a string")
		return false
	}
	return true
}

func decodeUint32(raw json.RawMessage, path string, errs *fielderr.List) (uint32, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil && !bytes.Equal(raw, []byte("null")) {
		// json.Number would take "10" for 10: a quoted number is a string here, as a
		// RateLimitPolicy's typecheck says.
		addError(errs, path, "must be an integer"+integerHint(s, path))
		return 0, false
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil || n == "" {
		addError(errs, path, "must be an integer")
		return 0, false
	}
	v, err := strconv.ParseUint(n.String(), 10, 64)
	if err != nil {
		f, ferr := n.Float64()
		switch {
		case strings.HasPrefix(n.String(), "-") && (ferr == nil || f < 0):
			addError(errs, path, "must be greater than or equal to 0")
		case ferr == nil && f == math.Trunc(f) && f > math.MaxUint32:
			addError(errs, path, fmt.Sprintf("must be at most %d", uint32(math.MaxUint32)))
		case ferr == nil && f == math.Trunc(f):
			return uint32(f), true // 1e3 and 60.0 are integers
		default:
			addError(errs, path, "must be an integer")
		}
		return 0, false
	}
	if v > math.MaxUint32 {
		addError(errs, path, fmt.Sprintf("must be at most %d", uint32(math.MaxUint32)))
		return 0, false
	}
	return uint32(v), true
}

// integerHint says how to write a string that was meant as an integer: a quoted number,
// or a duration where a number of seconds goes.
func integerHint(s, path string) string {
	if _, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
		return ", not a string: write " + strings.TrimSpace(s) + " without quotes"
	}
	if d, err := time.ParseDuration(s); err == nil && strings.HasSuffix(path, ".seconds") && d >= time.Second && d%time.Second == 0 {
		return fmt.Sprintf(" number of seconds: write %d for %s", d/time.Second, s)
	}
	return ""
}

func decodeStrings(raw json.RawMessage, path string, errs *fielderr.List) []string {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		addError(errs, path, "must be a list of strings")
		return nil
	}
	if items == nil {
		return nil // null
	}
	out := make([]string, 0, len(items))
	for j, item := range items {
		var s string
		if decodeString(item, fmt.Sprintf("%s[%d]", path, j), &s, errs) {
			out = append(out, s)
		}
	}
	return out
}

// fieldPath cuts a path after its field name: "[0].conditions[1]" becomes
// "[0].conditions".
func fieldPath(p string) string {
	dot := strings.IndexByte(p, '.')
	if dot < 0 {
		return p
	}
	if end := strings.IndexByte(p[dot:], '['); end >= 0 {
		return p[:dot+end]
	}
	return p
}

// listIndex returns the list index a path starts with, or -1.
func listIndex(p string) int {
	p, ok := strings.CutPrefix(p, "[")
	end := strings.IndexByte(p, ']')
	if !ok || end < 0 {
		return -1
	}
	i, _ := strconv.Atoi(p[:end])
	return i
}

// sortByIndex orders errors by list index, keeping each item's errors in the
// order they were found (decoding before validation).
func sortByIndex(errs fielderr.List) {
	slices.SortStableFunc(errs, func(a, b *fielderr.Error) int { return listIndex(a.Field) - listIndex(b.Field) })
}
