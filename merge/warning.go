package merge

import (
	"github.com/rlpkit/rlpkit/policyapi"
)

// Warning is a problem of valid inputs that compiling survives but that most likely is a
// mistake; it is the contract's warning (policyapi.Warning).
type Warning = policyapi.Warning

// compareWarnings orders warnings as policyapi.CompareWarnings does.
func compareWarnings(a, b Warning) int { return policyapi.CompareWarnings(a, b) }

// notFound says that a kind ns/name is not among the inputs, with the likely misspellings
// among keys, or what there is (policyapi.NotFound).
func notFound(kind string, k key, keys []key) string {
	names := make([]string, len(keys))
	for i, c := range keys {
		names[i] = c.String()
	}
	return policyapi.NotFound(kind, k.String(), names)
}
