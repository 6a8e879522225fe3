package controller

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/merge"
)

const (
	// ManagerName is rlpkit-controller's name: the value of LabelManagedBy on the
	// ConfigMaps it writes, and its field manager.
	ManagerName = "rlpkit-controller"
	// LabelManagedBy is the label that marks the ConfigMaps rlpkit-controller manages.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// LabelGateway names, on a ConfigMap, the Gateway it was compiled for.
	LabelGateway = "rlpkit.dev/gateway"
	// KeyPluginConfig is the ConfigMap key of the PluginConfig (YAML) that the
	// apim.kuadrant.io/v1alpha1 policies compile to, for rlpkit's rate-limit filter. It is
	// written when that API is read.
	KeyPluginConfig = "pluginconfig.yaml"
	// KeyLimits is the ConfigMap key of every limit the Gateway's rate-limit service
	// enforces (limitador's format, YAML), for rlpkit serve --limits: those of the
	// apim.kuadrant.io/v1alpha1 policies, then those of the kuadrant.io/v1 policies (the
	// content of KeyKuadrantLimits). Their namespaces never collide: a v1alpha1 domain holds
	// a "#", a v1 one is "routeNamespace/routeName".
	KeyLimits = "limits.yaml"
	// KeyKuadrantWasm is the ConfigMap key of the wasm-shim v0.14 configuration (YAML) that
	// the kuadrant.io/v1 policies compile to, as kuadrant-operator writes it into a
	// WasmPlugin or EnvoyExtensionPolicy: "wasm" of rlpkit compile -o kuadrant. It is
	// written when that API is read.
	KeyKuadrantWasm = "kuadrant-wasm.yaml"
	// KeyKuadrantLimits is the ConfigMap key of the Limitador limits (YAML) of the
	// kuadrant.io/v1 policies alone, as kuadrant-operator writes them into the Limitador
	// resource: "limits" of rlpkit compile -o kuadrant. It is written when that API is read.
	KeyKuadrantLimits = "kuadrant-limits.yaml"
	// configMapPrefix starts every ConfigMap name.
	configMapPrefix = "rlpkit-"
)

// ConfigMapName returns the name of a Gateway's ConfigMap: "rlpkit-" and the Gateway's name.
func ConfigMapName(gateway string) string { return configMapPrefix + gateway }

// GatewayOutput is what one Gateway's ConfigMap is made of: the Gateway and what each
// RateLimitPolicy API compiled for it. A nil config is an API not read.
type GatewayOutput struct {
	// Gateway is the Gateway, as read.
	Gateway *gatewayv1.Gateway
	// Merge is what the apim.kuadrant.io/v1alpha1 policies compile to (package merge).
	Merge *merge.GatewayConfig
	// Kuadrant is what the kuadrant.io/v1 policies compile to (package kuadrant).
	Kuadrant *kuadrant.GatewayConfig
}

// Name returns the Gateway's "namespace/name".
func (o GatewayOutput) Name() string { return key(o.Gateway) }

// Outputs returns, for every Gateway of in that a result compiled, sorted by
// namespace/name, what its ConfigMap is made of. res (apim.kuadrant.io/v1alpha1) and v1
// (kuadrant.io/v1) are nil for an API not read.
func (in *Input) Outputs(res *merge.Result, v1 *kuadrant.Result) []GatewayOutput {
	byName := map[string]*GatewayOutput{}
	get := func(name string) *GatewayOutput {
		if o, ok := byName[name]; ok {
			return o
		}
		gw, ok := in.Gateways[name]
		if !ok {
			return nil
		}
		byName[name] = &GatewayOutput{Gateway: gw}
		return byName[name]
	}
	if res != nil {
		for i := range res.Gateways {
			if o := get(res.Gateways[i].Gateway); o != nil {
				o.Merge = &res.Gateways[i]
			}
		}
	}
	if v1 != nil {
		for i := range v1.Gateways {
			if o := get(v1.Gateways[i].Gateway); o != nil {
				o.Kuadrant = &v1.Gateways[i]
			}
		}
	}
	out := make([]GatewayOutput, 0, len(byName))
	for _, o := range byName {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b GatewayOutput) int { return cmp.Compare(a.Name(), b.Name()) })
	return out
}

// ConfigMap returns the ConfigMap of one compiled Gateway: in the Gateway's namespace, named
// ConfigMapName, owned by the Gateway, holding as YAML the PluginConfig (KeyPluginConfig)
// when apim.kuadrant.io/v1alpha1 is read, the wasm-shim configuration and Limitador limits
// (KeyKuadrantWasm, KeyKuadrantLimits) when kuadrant.io/v1 is read, and every limit
// (KeyLimits). A Gateway without policies gets configurations without policies and the
// limits "[]".
func ConfigMap(out GatewayOutput) (*corev1.ConfigMap, error) {
	gw := out.Gateway
	name := ConfigMapName(gw.Name)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("controller: Gateway %s/%s: metadata.name: the ConfigMap name %q is invalid (%s): shorten the Gateway's name", gw.Namespace, gw.Name, name, errs[0])
	}
	data := map[string]string{}
	encode := func(k, what string, v any) error {
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("controller: Gateway %s/%s: encode the %s: %w", gw.Namespace, gw.Name, what, err)
		}
		data[k] = string(b)
		return nil
	}
	limits := []limitador.Limit{}
	if out.Merge != nil {
		if err := encode(KeyPluginConfig, "PluginConfig", out.Merge.PluginConfig); err != nil {
			return nil, err
		}
		limits = append(limits, out.Merge.Limits...)
	}
	if out.Kuadrant != nil {
		if err := encode(KeyKuadrantWasm, "wasm-shim configuration", out.Kuadrant.Wasm); err != nil {
			return nil, err
		}
		v1 := out.Kuadrant.Limits
		if v1 == nil {
			v1 = []limitador.Limit{}
		}
		if err := encode(KeyKuadrantLimits, "Limitador limits", v1); err != nil {
			return nil, err
		}
		limits = append(limits, v1...)
	}
	if err := encode(KeyLimits, "limits", limits); err != nil {
		return nil, err
	}
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace: gw.Namespace,
			Name:      name,
			Labels:    map[string]string{LabelManagedBy: ManagerName, LabelGateway: gw.Name},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: gatewayv1.GroupVersion.String(),
				Kind:       "Gateway",
				Name:       gw.Name,
				UID:        gw.UID,
				Controller: ptrTo(true),
			}},
		},
		Data: data,
	}, nil
}

// writeConfigMap creates the Gateway's ConfigMap when it is missing and updates it when its
// data, labels or owner differ from what was compiled. existing are the managed ConfigMaps
// by the "namespace/name" of their Gateway.
func (s *Syncer) writeConfigMap(ctx context.Context, c client.Client, out GatewayOutput, existing map[string]*corev1.ConfigMap) (created, updated bool, err error) {
	want, err := ConfigMap(out)
	if err != nil {
		return false, false, err
	}
	gwName := out.Name()
	have, ok := existing[gwName]
	if !ok {
		content, err := json.Marshal(want)
		if err != nil {
			return false, false, err
		}
		createKey := types.UID("create " + key(want))
		if s.created(createKey) {
			// Created by an earlier run, maybe with other content; the cache has not seen
			// it yet. Creating it again would fail (AlreadyExists): the cache's event for
			// it brings the run that updates it.
			return false, false, nil
		}
		if err := c.Create(ctx, want, client.FieldOwner(ManagerName)); err != nil {
			return false, false, fmt.Errorf("controller: create ConfigMap %s for Gateway %s: %w%s", key(want), gwName, err, notOurs(err))
		}
		s.wrote(createKey, "", string(content))
		return true, false, nil
	}
	if equality.Semantic.DeepEqual(have.Data, want.Data) && len(have.BinaryData) == 0 &&
		hasLabels(have.Labels, want.Labels) && equality.Semantic.DeepEqual(have.OwnerReferences, want.OwnerReferences) {
		return false, false, nil
	}
	content, err := json.Marshal(want)
	if err != nil {
		return false, false, err
	}
	if s.seen(have.UID, have.ResourceVersion, string(content)) {
		return false, false, nil
	}
	next := have.DeepCopy()
	next.Data = want.Data
	next.BinaryData = nil
	if next.Labels == nil {
		next.Labels = map[string]string{}
	}
	maps.Copy(next.Labels, want.Labels)
	next.OwnerReferences = want.OwnerReferences
	if err := c.Update(ctx, next, client.FieldOwner(ManagerName)); err != nil {
		return false, false, fmt.Errorf("controller: update ConfigMap %s for Gateway %s: %w", key(want), gwName, err)
	}
	s.wrote(have.UID, have.ResourceVersion, string(content))
	return false, true, nil
}

// hasLabels says whether have holds every label of want.
func hasLabels(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// notOurs explains an AlreadyExists error of a create: the ConfigMap exists without the
// label, so rlpkit-controller did not see it.
func notOurs(err error) string {
	if !apierrors.IsAlreadyExists(err) {
		return ""
	}
	return " (a ConfigMap without the label " + LabelManagedBy + "=" + ManagerName + " is not rlpkit-controller's, and it leaves it alone: delete or rename it)"
}

func ptrTo[T any](v T) *T { return &v }
