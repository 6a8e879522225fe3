package controller

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1alpha1"
)

// crdName returns the name of an API's policy CRD.
func crdName(a API) string { return a.kind().crd }

// NewScheme returns a scheme with the types the controller reads and writes: Kubernetes'
// built-in types, Gateway API v1 and every policy API's (AllAPIs).
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, gatewayv1.Install, policy.AddToScheme, kuadrantv1.AddToScheme, kuadrantv1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// CacheOptions restrict the manager's caches of ConfigMaps, and of the data-plane kinds
// given (DataPlaneOptions.Kinds of the data planes wired: their CRDs must be installed), to
// the objects the controller manages, so that they do not hold every ConfigMap of the
// cluster.
func CacheOptions(dataPlaneKinds ...schema.GroupVersionKind) cache.Options {
	managed := cache.ByObject{Label: labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagerName})}
	by := map[client.Object]cache.ByObject{&corev1.ConfigMap{}: managed}
	for _, gvk := range dataPlaneKinds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		by[u] = managed
	}
	return cache.Options{ByObject: by}
}

// ClientOptions make the manager's client read unstructured objects (the data-plane
// objects and AuthPolicies) from its caches too, as it reads the others.
func ClientOptions() client.Options {
	return client.Options{Cache: &client.CacheOptions{Unstructured: true}}
}

// Reconciler runs Sync for every request; all requests are the same one, the cluster.
type Reconciler struct {
	// Client reads from the manager's caches and writes to the API server.
	Client client.Client
	// Options are Sync's. When Options.APIs is empty, SetupWithManager sets it to the
	// policy APIs whose CRD the API server serves (DetectAPIs).
	Options Options
	// Syncer remembers the writes of earlier runs.
	Syncer Syncer
	// OnSync, when set, is called after each run with its summary and error (tests and
	// metrics).
	OnSync func(Summary, error)

	// skipNameValidation lets tests run several managers in one process.
	skipNameValidation bool
}

// clusterRequest is the one request every event maps to.
var clusterRequest = reconcile.Request{NamespacedName: types.NamespacedName{Name: "cluster"}}

// Reconcile implements reconcile.Reconciler: it runs Sync. A failed write is retried with
// the work queue's back-off.
func (r *Reconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	start := time.Now()
	sum, err := r.Syncer.Sync(ctx, r.Client, r.Options)
	observe(sum, time.Since(start))
	if r.OnSync != nil {
		r.OnSync(sum, err)
	}
	logger := log.FromContext(ctx)
	if err != nil {
		return reconcile.Result{}, err
	}
	if sum.Writes() > 0 {
		logger.Info("synced", "gateways", sum.Gateways, "routes", sum.Routes, "policies", sum.Policies, "policiesV1", sum.PoliciesV1, "tokenPolicies", sum.TokenPolicies, "authPolicies", sum.AuthPolicies,
			"statusPatches", sum.StatusPatches, "configMapsCreated", sum.ConfigMapsCreated,
			"configMapsUpdated", sum.ConfigMapsUpdated, "configMapsDeleted", sum.ConfigMapsDeleted,
			"dataPlaneCreated", sum.DataPlaneCreated, "dataPlaneUpdated", sum.DataPlaneUpdated, "dataPlaneDeleted", sum.DataPlaneDeleted,
			"warnings", len(sum.Warnings), "took", time.Since(start))
	}
	return reconcile.Result{}, nil
}

// SetupWithManager registers the Reconciler with mgr: it watches Gateways, HTTPRoutes,
// GRPCRoutes (when served), the policies of the APIs read (RateLimitPolicies,
// TokenRateLimitPolicies) and, with a kuadrant.io API read, AuthPolicies (when served)
// (changes of spec, labels or annotations: status is written by their controllers and by
// this one, and merging does not read it), Namespaces (metadata
// only: their labels select routes) and the managed ConfigMaps, and maps every event to the
// one request.
//
// Without Options.APIs it asks the API server which policy CRDs are installed: an API
// whose CRD is missing is neither watched nor read, and is logged; the controller needs a
// restart to pick up a CRD installed later. With no policy CRD installed it fails.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if len(r.Options.APIs) == 0 {
		found, missing, err := DetectAPIs(mgr.GetRESTMapper())
		if err != nil {
			return err
		}
		for _, a := range missing {
			mgr.GetLogger().Info("policy CRD not installed: its policies are not watched; install the CRD and restart the controller to use them", "api", string(a), "kind", a.GroupVersionKind().Kind, "crd", crdName(a))
		}
		if len(found) == 0 {
			return errNoAPI
		}
		r.Options.APIs = found
	}
	read, err := apis(r.Options.APIs)
	if err != nil {
		return err
	}
	if err := r.setupDataPlanes(mgr, read); err != nil {
		return err
	}
	all := handler.EnqueueRequestsFromMapFunc(func(context.Context, client.Object) []reconcile.Request {
		return []reconcile.Request{clusterRequest}
	})
	specChanged := predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{})
	ns := &metav1.PartialObjectMetadata{}
	ns.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Namespace"))
	b := ctrl.NewControllerManagedBy(mgr).
		Named("rlpkit").
		WithOptions(controller.Options{MaxConcurrentReconciles: 1, SkipNameValidation: &r.skipNameValidation}).
		Watches(&gatewayv1.Gateway{}, all, builder.WithPredicates(specChanged)).
		Watches(&gatewayv1.HTTPRoute{}, all, builder.WithPredicates(specChanged))
	if b, err = watchGRPCRoutes(mgr, b, all, specChanged); err != nil {
		return err
	}
	if b, err = watchAuthPolicies(mgr, b, read, all, specChanged); err != nil {
		return err
	}
	for _, a := range read {
		b = b.Watches(a.kind().newObject(), all, builder.WithPredicates(specChanged))
	}
	for _, gvk := range r.Options.DataPlane.Kinds() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		b = b.Watches(u, all, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.LabelChangedPredicate{})))
	}
	return b.WatchesMetadata(ns, all, builder.WithPredicates(predicate.LabelChangedPredicate{})).
		Watches(&corev1.ConfigMap{}, all).
		Complete(r)
}

// setupDataPlanes checks the data-plane options and keeps the data planes whose kinds the
// API server serves, logging the others. The manager's cache must have been made with
// CacheOptions of those data planes, and its client with ClientOptions.
func (r *Reconciler) setupDataPlanes(mgr ctrl.Manager, read []API) error {
	dp := &r.Options.DataPlane
	if !dp.enabled() {
		return nil
	}
	if err := dp.check(read); err != nil {
		return err
	}
	found, missing, err := DetectDataPlanes(mgr.GetRESTMapper(), dp.DataPlanes, dp.RateLimitAddress != "")
	if err != nil {
		return err
	}
	for _, m := range missing {
		mgr.GetLogger().Info("data plane not wired: its CRDs are not installed; install them and restart the controller", "dataPlane", m)
	}
	dp.DataPlanes = found
	return nil
}
