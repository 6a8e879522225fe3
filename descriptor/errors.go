package descriptor

import (
	"strconv"

	"github.com/rlpkit/rlpkit/fielderr"
)

// FieldError is one problem of a PluginConfig, located by its field path
// ("rateLimitPolicies[1].gatewayActions[0].configurations[0].actions[2]"). It is
// fielderr.Error, with Pkg "descriptor": it prints as "descriptor: FIELD: DETAIL".
type FieldError = fielderr.Error

// Errors is every problem found in one input, in a stable order: a fielderr.List. Its Error
// method prints one problem per line.
type Errors = fielderr.List

// pkg starts every error of this package.
const pkg = "descriptor"

// errs collects field errors.
type errs struct{ list Errors }

func (c *errs) add(field, detail string) {
	c.list = append(c.list, &FieldError{Pkg: pkg, Field: field, Detail: detail})
}

// err returns the collected errors, or nil when there are none.
func (c *errs) err() error { return c.list.Err() }

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
