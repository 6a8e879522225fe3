package policytest

import (
	"strings"

	"github.com/rlpkit/rlpkit/policyapi"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// authNeed is one limit that reads auth.* attributes: its index and the attributes, each
// split at its dots.
type authNeed struct {
	index int
	names []string
	paths [][]string
}

// authNeeds returns the limits of target that read auth.* attributes, when its Frontend
// says which (policyapi.AuthFrontend).
func authNeeds(target *Target) []authNeed {
	af, ok := target.Frontend.(policyapi.AuthFrontend)
	if !ok {
		return nil
	}
	var out []authNeed
	for i := range target.Limits {
		names := af.AuthAttributes(&target.Limits[i])
		if len(names) == 0 {
			continue
		}
		n := authNeed{index: i, names: names}
		for _, name := range names {
			n.paths = append(n.paths, strings.Split(name, "."))
		}
		out = append(out, n)
	}
	return out
}

// countMissingAuth counts the request against every limit reading an auth.* attribute
// the request lacks, remembering the first such attribute.
func (s *Simulator) countMissingAuth() {
	for _, n := range s.authNeeds {
		for j, p := range n.paths {
			if wasmshim.HasAuth(s.in.Auth, p) {
				continue
			}
			st := &s.stats[n.index]
			st.MissingAuth++
			if st.MissingAuthAttribute == "" {
				st.MissingAuthAttribute = "auth." + n.names[j]
			}
			break
		}
	}
}
