package controller

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
)

// Input is what Sync reads: the objects as a validated policy.Set, and the objects it
// writes to, by "namespace/name".
type Input struct {
	// Set holds the Gateways, HTTPRoutes, RateLimitPolicies and Namespaces, validated.
	Set *policy.Set
	// Gateways are the Gateways of Set by "namespace/name".
	Gateways map[string]*gatewayv1.Gateway
	// Policies are the RateLimitPolicies of Set by "namespace/name".
	Policies map[string]*policy.RateLimitPolicy
	// ConfigMaps are the ConfigMaps labelled as managed by rlpkit-controller, by the
	// "namespace/name" of the Gateway they are named after (ConfigMapName).
	ConfigMaps map[string]*corev1.ConfigMap
}

// Read lists, through c, the objects Sync compiles and the ConfigMaps it manages. With a
// manager's client the lists come from its caches, and the objects are the caches': Read
// copies nothing, and Sync writes only through patches and updates of copies.
func Read(ctx context.Context, c client.Client) (*Input, error) {
	var gws gatewayv1.GatewayList
	var routes gatewayv1.HTTPRouteList
	var pols policy.RateLimitPolicyList
	var nss metav1.PartialObjectMetadataList
	nss.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NamespaceList"))
	var cms corev1.ConfigMapList
	for _, l := range []struct {
		what string
		list client.ObjectList
		opts []client.ListOption
	}{
		{"Gateways", &gws, nil},
		{"HTTPRoutes", &routes, nil},
		{"RateLimitPolicies", &pols, nil},
		{"Namespaces", &nss, nil},
		{"ConfigMaps", &cms, []client.ListOption{client.MatchingLabels{LabelManagedBy: ManagerName}}},
	} {
		if err := c.List(ctx, l.list, l.opts...); err != nil {
			return nil, fmt.Errorf("controller: list %s: %w", l.what, err)
		}
	}

	in := &Input{
		Gateways:   make(map[string]*gatewayv1.Gateway, len(gws.Items)),
		Policies:   make(map[string]*policy.RateLimitPolicy, len(pols.Items)),
		ConfigMaps: make(map[string]*corev1.ConfigMap, len(cms.Items)),
	}
	gwList := make([]*gatewayv1.Gateway, len(gws.Items))
	for i := range gws.Items {
		gwList[i] = &gws.Items[i]
		in.Gateways[key(&gws.Items[i])] = &gws.Items[i]
	}
	routeList := make([]*gatewayv1.HTTPRoute, len(routes.Items))
	for i := range routes.Items {
		routeList[i] = &routes.Items[i]
	}
	polList := make([]*policy.RateLimitPolicy, len(pols.Items))
	for i := range pols.Items {
		polList[i] = &pols.Items[i]
		in.Policies[key(&pols.Items[i])] = &pols.Items[i]
	}
	nsList := make([]*policy.Namespace, len(nss.Items))
	for i := range nss.Items {
		nsList[i] = &policy.Namespace{ObjectMeta: nss.Items[i].ObjectMeta}
	}
	for i := range cms.Items {
		cm := &cms.Items[i]
		if gw, ok := strings.CutPrefix(cm.Name, configMapPrefix); ok {
			in.ConfigMaps[cm.Namespace+"/"+gw] = cm
		}
	}
	in.Set = policy.NewSet(gwList, routeList, polList, nsList)
	return in, nil
}

func key(o client.Object) string { return o.GetNamespace() + "/" + o.GetName() }
