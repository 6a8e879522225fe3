package kuadrant

import (
	"slices"

	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/wasmshim"
)

var _ policyapi.AuthFrontend = (*wasmFrontend)(nil)

// AuthAttributes returns the auth.* attributes a limit's predicates and counters read in
// the configuration (those of the action and the conditionalData block carrying its
// identifier), in order, each once.
func (f *wasmFrontend) AuthAttributes(l *limitador.Limit) []string {
	return f.authReads[limitID(l)]
}

// authReads returns, by limit identifier, the auth.* attributes each limit's predicates
// and counters read in cfg.
func authReads(cfg *wasmshim.Config) map[string][]string {
	out := map[string][]string{}
	for _, as := range cfg.ActionSets {
		for _, a := range as.Actions {
			for _, cd := range a.ConditionalData {
				if len(cd.Data) == 0 || cd.Data[0].Expression == nil {
					continue
				}
				id := cd.Data[0].Expression.Key
				exprs := slices.Concat(a.Predicates, cd.Predicates)
				for _, d := range cd.Data[1:] {
					if d.Expression != nil {
						exprs = append(exprs, d.Expression.Value)
					}
				}
				for _, e := range exprs {
					for _, name := range wasmshim.AuthAttributes(e) {
						if !slices.Contains(out[id], name) {
							out[id] = append(out[id], name)
						}
					}
				}
			}
		}
	}
	return out
}
