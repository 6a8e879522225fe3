package descriptor

import (
	"strconv"

	"github.com/rlpkit/rlpkit/fielderr"
)

// pkg starts every error of this package.
const pkg = "descriptor"

// errs collects field errors of a PluginConfig, located by their field path
// ("rateLimitPolicies[1].gatewayActions[0].configurations[0].actions[2]"),
// each with Pkg "descriptor": they print as "descriptor: FIELD: DETAIL".
type errs struct{ list fielderr.List }

func (c *errs) add(field, detail string) {
	c.list = append(c.list, &fielderr.Error{Pkg: pkg, Field: field, Detail: detail})
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
