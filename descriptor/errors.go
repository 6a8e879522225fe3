package descriptor

import (
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

// path builds field paths (fielderr.Path).
type path = fielderr.Path
