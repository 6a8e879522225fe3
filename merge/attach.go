package merge

import (
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/topology"
)

// Attachment is an HTTPRoute attached to a Gateway: through which listeners, and the
// hostnames it serves there (see topology.Attachment).
type Attachment = topology.Attachment

// What to do about a refusal (package topology's hints).
const (
	hintProtocol  = topology.HintProtocol
	hintNamespace = topology.HintNamespace
	hintKinds     = topology.HintKinds
	hintHostnames = topology.HintHostnames
)

// key is a namespace/name pair.
type key struct{ ns, name string }

func (k key) String() string { return k.ns + "/" + k.name }

// topo indexes the objects of a set for attachment, over package topology.
type topo struct{ *topology.Topology }

func newTopology(set *policy.Set) topo {
	labels := map[string]map[string]string{}
	for _, ns := range set.Namespaces {
		labels[ns.Name] = ns.Labels
	}
	return topo{topology.New(set.Gateways, labels)}
}

// gateway returns the Gateway named k, nil when there is none.
func (t topo) gateway(k key) *gatewayv1.Gateway {
	return t.Gateway(topology.Key{Namespace: k.ns, Name: k.name})
}

// attach returns the Gateways route attaches to, in parentRefs order, one Attachment per
// Gateway.
func (t topo) attach(route *gatewayv1.HTTPRoute) []Attachment { return t.Attach(route) }

// admit returns the hostnames route serves through listener l of gw, or why l does not
// take it.
func (t topo) admit(gw *gatewayv1.Gateway, l gatewayv1.Listener, route *gatewayv1.HTTPRoute) ([]string, *topology.Refusal) {
	return t.Admit(gw, l, route)
}

// refersToGateway reports whether a parentRef names a Gateway.
func refersToGateway(ref gatewayv1.ParentReference) bool { return topology.IsGatewayRef(ref) }

// parentGateway returns the Gateway a parentRef of route names.
func parentGateway(route *gatewayv1.HTTPRoute, ref gatewayv1.ParentReference) key {
	k := topology.ParentGateway(route, ref)
	return key{k.Namespace, k.Name}
}

// selects reports whether a parentRef selects listener l.
func selects(ref gatewayv1.ParentReference, l gatewayv1.Listener) bool {
	return topology.SelectsListener(ref, l)
}
