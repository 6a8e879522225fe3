package descriptor

import (
	"strconv"
	"strings"
)

// FieldError is one problem of a PluginConfig, located by its field path
// ("rateLimitPolicies[1].gatewayActions[0].configurations[0].actions[2]").
type FieldError struct {
	// Field is the path of the offending field; empty for the document itself.
	Field string
	// Detail says what is wrong.
	Detail string
}

// Error returns "field: detail".
func (e *FieldError) Error() string {
	if e.Field == "" {
		return e.Detail
	}
	return e.Field + ": " + e.Detail
}

// Errors is every problem found in one input, in a stable order. Its Error method prints one
// problem per line.
type Errors []*FieldError

// Error joins the problems, one per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap returns the problems as a list, for errors.As and errors.Is.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// errs collects field errors.
type errs struct{ list Errors }

func (c *errs) add(field, detail string) {
	c.list = append(c.list, &FieldError{Field: field, Detail: detail})
}

// err returns the collected errors, or nil when there are none.
func (c *errs) err() error {
	if len(c.list) == 0 {
		return nil
	}
	return c.list
}

// path builds field paths without a dependency on apimachinery.
type path string

func (p path) child(name string) path {
	if p == "" {
		return path(name)
	}
	return p + "." + path(name)
}

func (p path) index(i int) path { return p + "[" + path(strconv.Itoa(i)) + "]" }

func (p path) key(k string) path { return p + "[" + path(k) + "]" }
