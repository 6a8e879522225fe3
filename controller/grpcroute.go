package controller

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
)

// readGRPCRoutes lists the GRPCRoutes through c into set, so that policies on them (and
// Gateway policies reaching them) compile. A cluster that does not serve the kind (the
// Gateway API's CRDs of an older release) has none: its absence is not an error.
func readGRPCRoutes(ctx context.Context, c client.Client, set *policy.Set) error {
	var routes gatewayv1.GRPCRouteList
	if found, err := listOptional(ctx, c, &routes, "GRPCRoutes"); !found {
		return err
	}
	list := make([]*gatewayv1.GRPCRoute, len(routes.Items))
	for i := range routes.Items {
		list[i] = &routes.Items[i]
	}
	set.AddGRPCRoutes(list)
	return nil
}

// GRPCRoutesServed reports whether the API server serves GRPCRoutes
// (gateway.networking.k8s.io/v1), per mapper. The error is for a mapper that cannot
// answer, not for a missing CRD.
func GRPCRoutesServed(mapper meta.RESTMapper) (bool, error) {
	return served(mapper, gatewayv1.SchemeGroupVersion.WithKind(policy.KindGRPCRoute), "GRPCRoutes")
}

// listOptional lists, through c, the objects of a kind whose CRD may not be installed into
// list, and reports whether the kind is served; a cluster not serving it is no error.
func listOptional(ctx context.Context, c client.Client, list client.ObjectList, plural string) (bool, error) {
	if err := c.List(ctx, list); err != nil {
		if meta.IsNoMatchError(err) {
			return false, nil
		}
		return false, fmt.Errorf("controller: list %s: %w", plural, err)
	}
	return true, nil
}

// served reports whether mapper knows gvk, a kind whose CRD may not be installed; plural
// names the kind's objects in the error of a mapper that cannot answer.
func served(mapper meta.RESTMapper, gvk schema.GroupVersionKind, plural string) (bool, error) {
	_, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	}
	return false, fmt.Errorf("controller: are %s served? %w", plural, err)
}

// watchGRPCRoutes adds to b a watch of GRPCRoutes (their spec, labels and annotations, as
// for HTTPRoutes), so that a change of a route recompiles the policies on it, when the
// API server serves them; otherwise it logs that they are not watched.
func watchGRPCRoutes(mgr ctrl.Manager, b *builder.Builder, h handler.EventHandler, changed predicate.Predicate) (*builder.Builder, error) {
	served, err := GRPCRoutesServed(mgr.GetRESTMapper())
	if err != nil {
		return nil, err
	}
	if !served {
		mgr.GetLogger().Info("GRPCRoute CRD not installed: GRPCRoutes are not watched; install the Gateway API's CRDs and restart the controller to use them")
		return b, nil
	}
	return b.Watches(&gatewayv1.GRPCRoute{}, h, builder.WithPredicates(changed)), nil
}
