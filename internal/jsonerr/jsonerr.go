// Package jsonerr describes, for rlpkit's messages, the problems of decoding a JSON document
// into a Go type: encoding/json's errors and the unknown and duplicate fields that the strict
// decoding of sigs.k8s.io/json reports. Packages policy and policytest share it.
package jsonerr

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	sigsjson "sigs.k8s.io/json"
)

// typeErrorRE picks the field and the wanted type out of encoding/json's type errors.
var typeErrorRE = regexp.MustCompile(`cannot unmarshal (\S+) into Go struct field [^.\s]+\.(\S+) of type (\S+)`)

// Describe turns a decoding error into a field path and a message.
func Describe(err error) (path, detail string) {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if m := typeErrorRE.FindStringSubmatch(msg); m != nil {
		return m[2], fmt.Sprintf("Invalid value: %s: must be %s", m[1], m[3])
	}
	return "", "cannot decode: " + msg
}

// Strict returns the field path and the message ("unknown field" or "duplicate field") of
// one of the problems sigs.k8s.io/json's UnmarshalStrict reports.
func Strict(e error) (path, detail string) {
	path = e.Error()
	var fe sigsjson.FieldError
	if errors.As(e, &fe) {
		path = fe.FieldPath()
	}
	detail = "unknown field"
	if strings.Contains(e.Error(), "duplicate field") {
		detail = "duplicate field"
	}
	return path, detail
}
