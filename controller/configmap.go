package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/limit"
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
	// KeyPluginConfig is the ConfigMap key of the PluginConfig (YAML), for the Gateway's
	// rate-limit filter.
	KeyPluginConfig = "pluginconfig.yaml"
	// KeyLimits is the ConfigMap key of the limits (limitador's format, YAML), for the
	// rate-limit service (rlpkit serve --limits).
	KeyLimits = "limits.yaml"
	// configMapPrefix starts every ConfigMap name.
	configMapPrefix = "rlpkit-"
)

// ConfigMapName returns the name of a Gateway's ConfigMap: "rlpkit-" and the Gateway's name.
func ConfigMapName(gateway string) string { return configMapPrefix + gateway }

// ConfigMap returns the ConfigMap of one compiled Gateway: in the Gateway's namespace, named
// ConfigMapName, owned by the Gateway, holding the PluginConfig and the limits as YAML. A
// Gateway without policies gets a PluginConfig without policies and the limits "[]".
func ConfigMap(gw *gatewayv1.Gateway, gc merge.GatewayConfig) (*corev1.ConfigMap, error) {
	name := ConfigMapName(gw.Name)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("controller: Gateway %s/%s: metadata.name: the ConfigMap name %q is invalid (%s): shorten the Gateway's name", gw.Namespace, gw.Name, name, errs[0])
	}
	pc, err := yaml.Marshal(gc.PluginConfig)
	if err != nil {
		return nil, fmt.Errorf("controller: Gateway %s/%s: encode the PluginConfig: %w", gw.Namespace, gw.Name, err)
	}
	limits := gc.Limits
	if limits == nil {
		limits = []limit.Limit{}
	}
	lim, err := yaml.Marshal(limits)
	if err != nil {
		return nil, fmt.Errorf("controller: Gateway %s/%s: encode the limits: %w", gw.Namespace, gw.Name, err)
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
		Data: map[string]string{KeyPluginConfig: string(pc), KeyLimits: string(lim)},
	}, nil
}

// writeConfigMap creates the Gateway's ConfigMap when it is missing and updates it when its
// data, labels or owner differ from what was compiled. existing are the managed ConfigMaps
// by the "namespace/name" of their Gateway.
func (s *Syncer) writeConfigMap(ctx context.Context, c client.Client, gw *gatewayv1.Gateway, gc merge.GatewayConfig, existing map[string]*corev1.ConfigMap) (created, updated bool, err error) {
	want, err := ConfigMap(gw, gc)
	if err != nil {
		return false, false, err
	}
	have, ok := existing[gc.Gateway]
	if !ok {
		content, err := json.Marshal(want)
		if err != nil {
			return false, false, err
		}
		createKey := types.UID("create " + key(want))
		if s.seen(createKey, "", string(content)) {
			return false, false, nil // created by an earlier run; the cache has not seen it yet
		}
		if err := c.Create(ctx, want, client.FieldOwner(ManagerName)); err != nil {
			return false, false, fmt.Errorf("controller: create ConfigMap %s for Gateway %s: %w%s", key(want), gc.Gateway, err, notOurs(err))
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
		return false, false, fmt.Errorf("controller: update ConfigMap %s for Gateway %s: %w", key(want), gc.Gateway, err)
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
