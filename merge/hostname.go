package merge

import "github.com/rlpkit/rlpkit/topology"

// IntersectHostnames returns the hostnames a route serves through a listener, with Gateway
// API semantics: see topology.IntersectHostnames.
func IntersectHostnames(listener string, route []string) []string {
	return topology.IntersectHostnames(listener, route)
}
