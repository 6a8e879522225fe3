package fielderr

import (
	"errors"
	"io/fs"
	"testing"
)

func TestErrorError(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{name: "package, field and detail", err: &Error{Pkg: "limit", Field: "[1].seconds", Detail: "must be greater than 0"}, want: "limit: [1].seconds: must be greater than 0"},
		{name: "no field", err: &Error{Pkg: "descriptor", Detail: "empty document"}, want: "descriptor: empty document"},
		{name: "no package", err: &Error{Field: "max", Detail: "required"}, want: "max: required"},
		{name: "detail wins over the cause", err: &Error{Pkg: "envoyxds", Field: "a", Detail: "invalid PluginConfig: required", Err: fs.ErrInvalid}, want: "envoyxds: a: invalid PluginConfig: required"},
		{name: "no detail: the cause's message", err: &Error{Pkg: "limit", Field: "[0]", Err: fs.ErrInvalid}, want: "limit: [0]: invalid argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.err.Error(); got != tc.want {
				t.Errorf("%#v.Error() = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestListError(t *testing.T) {
	l := List{{Pkg: "limit", Field: "[0].seconds", Detail: "must be greater than 0"}, {Pkg: "limit", Detail: "whole"}}
	want := "limit: [0].seconds: must be greater than 0\nlimit: whole"
	if got := l.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestListErr(t *testing.T) {
	var empty List
	if err := empty.Err(); err != nil {
		t.Errorf("List(nil).Err() = %v, want nil", err)
	}
	l := List{{Pkg: "p", Detail: "d"}}
	if err := l.Err(); err == nil || err.Error() != "p: d" {
		t.Errorf("Err() = %v, want the list", err)
	}
}

// TestErrorsAs: errors.As and errors.Is reach every problem of a list and the
// cause of each.
func TestErrorsAs(t *testing.T) {
	second := &Error{Pkg: "limit", Field: "[1]", Detail: "bad", Err: fs.ErrNotExist}
	var err error = List{{Pkg: "limit", Field: "[0]", Detail: "bad"}, second}
	err = errors.Join(errors.New("reading limits.yaml"), err)

	var fe *Error
	if !errors.As(err, &fe) || fe.Field != "[0]" {
		t.Errorf("errors.As(*Error) = %v, want the first problem", fe)
	}
	var l List
	if !errors.As(err, &l) || len(l) != 2 {
		t.Errorf("errors.As(List) = %v, want the list of 2", l)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false, want true (the second problem's cause)")
	}
	if got := second.Unwrap(); got != fs.ErrNotExist {
		t.Errorf("Unwrap() = %v, want fs.ErrNotExist", got)
	}
}
