package controller

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
)

// Input is what Sync reads: the objects as a validated policy.Set, and the objects it
// writes to, by "namespace/name".
type Input struct {
	// APIs are the policy APIs read.
	APIs []API
	// Set holds the Gateways, HTTPRoutes, GRPCRoutes, policies of the APIs read
	// (Set.Policies, Set.PoliciesV1, Set.TokenPolicies), AuthPolicies (Set.AuthPolicies,
	// read with the kuadrant.io APIs where served) and Namespaces, validated.
	Set *policy.Set
	// Gateways are the Gateways of Set by "namespace/name".
	Gateways map[string]*gatewayv1.Gateway
	// Policies are the policies of Set, by API and "namespace/name": a
	// *policy.RateLimitPolicy (APIV1alpha1), a *kuadrantv1.RateLimitPolicy (APIV1) or a
	// *kuadrantv1alpha1.TokenRateLimitPolicy (APITokenV1alpha1).
	Policies map[API]map[string]client.Object
	// ConfigMaps are the ConfigMaps labelled as managed by rlpkit-controller, by their
	// "namespace/name".
	ConfigMaps map[string]*corev1.ConfigMap
	// DataPlane are the data-plane objects (WasmPlugins, ...) labelled as managed by
	// rlpkit-controller, of the kinds Sync writes, by "Kind namespace/name". Read leaves it
	// empty; Sync fills it when it wires data planes.
	DataPlane map[string]*unstructured.Unstructured

	// gatewayUIDs are the Gateways by UID.
	gatewayUIDs map[types.UID]*gatewayv1.Gateway
}

// byOwner returns the objects of objs by the UID of the Gateway that controls them, for
// those that carry its label.
func byOwner[T metav1.Object](objs map[string]T, gateways map[types.UID]*gatewayv1.Gateway) map[types.UID][]T {
	out := map[types.UID][]T{}
	for _, o := range objs {
		uid := controllerOf(o)
		if gw, ok := gateways[uid]; ok && o.GetNamespace() == gw.Namespace && o.GetLabels()[LabelGateway] == GatewayLabel(gw.Name) {
			out[uid] = append(out[uid], o)
		}
	}
	return out
}

// Reads says whether the input holds the policies of api.
func (in *Input) Reads(api API) bool { return slices.Contains(in.APIs, api) }

// serves says whether the input's APIs include one compiled by the policy API named name
// (policyapi.API.Name): apis.Options.Served.
func (in *Input) serves(name string) bool {
	return slices.ContainsFunc(in.APIs, func(a API) bool { return a.PolicyAPI() == name })
}

// Read lists, through c, the objects Sync compiles and the ConfigMaps it manages: the
// policies of the given APIs, or of all (AllAPIs) when none is given, and, with an API
// package kuadrant compiles, the AuthPolicies where the API server serves them. With a
// manager's client the lists come from its caches, and the objects are the caches' (the
// AuthPolicies decoded from them): Read copies nothing else, and Sync writes only through
// patches and updates of copies.
func Read(ctx context.Context, c client.Client, api ...API) (*Input, error) {
	read, err := apis(api)
	if err != nil {
		return nil, err
	}
	var gws gatewayv1.GatewayList
	var routes gatewayv1.HTTPRouteList
	var nss metav1.PartialObjectMetadataList
	nss.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("NamespaceList"))
	var cms corev1.ConfigMapList
	type list struct {
		what string
		list client.ObjectList
		opts []client.ListOption
	}
	lists := []list{{"Gateways", &gws, nil}, {"HTTPRoutes", &routes, nil}}
	policyLists := make([]client.ObjectList, len(read))
	for i, a := range read {
		k := a.kind()
		policyLists[i] = k.newList()
		lists = append(lists, list{k.plural() + " " + string(a), policyLists[i], nil})
	}
	lists = append(lists, list{"Namespaces", &nss, nil},
		list{"ConfigMaps", &cms, []client.ListOption{client.MatchingLabels{LabelManagedBy: ManagerName}}})
	for _, l := range lists {
		if err := c.List(ctx, l.list, l.opts...); err != nil {
			hint := ""
			if meta.IsNoMatchError(err) {
				hint = " (is its CRD installed? see config/crd)"
			}
			return nil, fmt.Errorf("controller: list %s: %w%s", l.what, err, hint)
		}
	}

	in := &Input{
		APIs:        read,
		Gateways:    make(map[string]*gatewayv1.Gateway, len(gws.Items)),
		Policies:    make(map[API]map[string]client.Object, len(read)),
		ConfigMaps:  make(map[string]*corev1.ConfigMap, len(cms.Items)),
		gatewayUIDs: make(map[types.UID]*gatewayv1.Gateway, len(gws.Items)),
	}
	gwList := make([]*gatewayv1.Gateway, len(gws.Items))
	for i := range gws.Items {
		gwList[i] = &gws.Items[i]
		in.Gateways[key(&gws.Items[i])] = &gws.Items[i]
		in.gatewayUIDs[gws.Items[i].UID] = &gws.Items[i]
	}
	routeList := make([]*gatewayv1.HTTPRoute, len(routes.Items))
	for i := range routes.Items {
		routeList[i] = &routes.Items[i]
	}
	nsList := make([]*policy.Namespace, len(nss.Items))
	for i := range nss.Items {
		nsList[i] = &policy.Namespace{ObjectMeta: nss.Items[i].ObjectMeta}
	}
	for i := range cms.Items {
		in.ConfigMaps[key(&cms.Items[i])] = &cms.Items[i]
	}
	in.Set = policy.NewSet(gwList, routeList, nil, nsList)
	for i, a := range read {
		objs, err := items(policyLists[i])
		if err != nil {
			return nil, fmt.Errorf("controller: list %s %s: %w", a.kind().plural(), a, err)
		}
		byName := make(map[string]client.Object, len(objs))
		for _, o := range objs {
			byName[key(o)] = o
		}
		in.Policies[a] = byName
		a.kind().add(in.Set, objs)
	}
	if err := readGRPCRoutes(ctx, c, in.Set); err != nil {
		return nil, err
	}
	if readsAuthPolicies(read) {
		if err := readAuthPolicies(ctx, c, in.Set); err != nil {
			return nil, err
		}
	}
	return in, nil
}

func key(o client.Object) string { return o.GetNamespace() + "/" + o.GetName() }

// readDataPlane lists, through c, the managed objects of the kinds given.
func readDataPlane(ctx context.Context, c client.Client, kinds []schema.GroupVersionKind) (map[string]*unstructured.Unstructured, error) {
	out := map[string]*unstructured.Unstructured{}
	for _, gvk := range kinds {
		var list unstructured.UnstructuredList
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err := c.List(ctx, &list, client.MatchingLabels{LabelManagedBy: ManagerName}); err != nil {
			return nil, fmt.Errorf("controller: list %ss %s: %w", gvk.Kind, gvk.GroupVersion(), err)
		}
		for i := range list.Items {
			u := &list.Items[i]
			u.SetGroupVersionKind(gvk)
			out[describeObject(u)] = u
		}
	}
	return out, nil
}
