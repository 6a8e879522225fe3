package controller

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/merge"
	"github.com/rlpkit/rlpkit/policyapi"
)

const (
	// ManagerName is rlpkit-controller's name: the value of LabelManagedBy on the
	// objects it writes, and its field manager.
	ManagerName = "rlpkit-controller"
	// LabelManagedBy is the label that marks the objects rlpkit-controller manages.
	LabelManagedBy = "app.kubernetes.io/managed-by"
	// LabelGateway names, on an object rlpkit-controller writes, the Gateway it was compiled
	// for (GatewayLabel: the name, or a shortened form with a hash when longer than a label
	// value may be).
	LabelGateway = "rlpkit.dev/gateway"
	// LabelPart marks a ConfigMap holding a part of a split output; its value is the part's
	// number, from 1.
	LabelPart = "rlpkit.dev/part"
	// KeyPluginConfig is the ConfigMap key of the PluginConfig that the
	// apim.kuadrant.io/v1alpha1 policies compile to (bundle.PluginConfig); written when that
	// API is read.
	KeyPluginConfig = bundle.PluginConfig
	// KeyLimits is the ConfigMap key of every limit the Gateway's rate-limit service
	// enforces (bundle.Limits), for rlpkit serve --limits: those of the
	// apim.kuadrant.io/v1alpha1 policies, then those of the kuadrant.io RateLimitPolicies and
	// TokenRateLimitPolicies. Their namespaces never collide: a v1alpha1 domain holds a "#",
	// a kuadrant.io one is "routeNamespace/routeName", where the two kuadrant.io kinds'
	// limits are told apart by their conditions ("limit." and "tokenlimit." keys).
	KeyLimits = bundle.Limits
	// KeyKuadrantWasm is the ConfigMap key of the wasm-shim configuration the kuadrant.io
	// policies (RateLimitPolicy v1, TokenRateLimitPolicy v1alpha1) compile to (bundle.KuadrantWasm): "wasm" of rlpkit compile -o kuadrant.
	KeyKuadrantWasm = bundle.KuadrantWasm
	// KeyKuadrantLimits is the ConfigMap key of the Limitador limits of the kuadrant.io
	// policies alone (bundle.KuadrantLimits): "limits" of rlpkit compile -o kuadrant.
	KeyKuadrantLimits = bundle.KuadrantLimits
	// KeyIndex is the key, in a split output's ConfigMap (ConfigMapName), of the index of
	// its parts: bundle.IndexFile.
	KeyIndex = bundle.IndexFile
)

const (
	// MaxConfigMapBytes is the most data a Gateway's output may hold and stay in one
	// ConfigMap: the API server's limit on a ConfigMap's data (the lengths of its values).
	MaxConfigMapBytes = 1 << 20
	// MaxPartBytes is the most data each ConfigMap of a split output holds: half the API
	// server's limit, so that every object stays well under the limits of the API server
	// and of etcd (1.5 MiB a request).
	MaxPartBytes = 512 << 10
)

// GatewayOutput is what one Gateway's ConfigMaps are made of: the Gateway and what each
// policy API compiled for it. An API not read has no part.
type GatewayOutput struct {
	// Gateway is the Gateway, as read.
	Gateway *gatewayv1.Gateway
	// Parts are what each policy API compiled for the Gateway, in the order of the APIs.
	Parts []Part
}

// Part is what one policy API compiled for a Gateway: its files of the Gateway's bundle,
// its limits, the policies they enforce.
type Part struct {
	// API is the name of the policy API (policyapi.API.Name).
	API string
	policyapi.Bundle
}

// Name returns the Gateway's "namespace/name".
func (o GatewayOutput) Name() string { return key(o.Gateway) }

// file returns the value of the bundle file named name and the API whose part holds it,
// or nil and "" when no part holds it.
func (o GatewayOutput) file(name string) (any, string) {
	for _, p := range o.Parts {
		for _, f := range p.Files {
			if f.Name == name {
				return f.Value, p.API
			}
		}
	}
	return nil, ""
}

// Outputs returns, for every Gateway of in that a result compiled, sorted by
// namespace/name, what its ConfigMaps are made of. res (apim.kuadrant.io/v1alpha1) and v1
// (kuadrant.io/v1 and v1alpha1) are nil for an API not read (GatewayOutputs).
func (in *Input) Outputs(res *merge.Result, v1 *kuadrant.Result) []GatewayOutput {
	outs, _ := in.GatewayOutputs(compiledOf(res, v1)) // both are policyapi.Bundlers
	return outs
}

// GatewayOutputs returns, for every Gateway of in that a compiled API has a bundle for
// (policyapi.Bundler), sorted by namespace/name, what its ConfigMaps are made of: a part
// per API, in the order of compiled. The error names an API that is no
// policyapi.Bundler.
func (in *Input) GatewayOutputs(compiled []Compiled) ([]GatewayOutput, error) {
	byName := map[string]*GatewayOutput{}
	for _, c := range compiled {
		b, ok := c.Compiled.(policyapi.Bundler)
		if !ok {
			return nil, fmt.Errorf("controller: %s: no output for its compiled policies (not a policyapi.Bundler)", c.API)
		}
		for _, bundle := range b.Bundles() {
			o, ok := byName[bundle.Gateway]
			if !ok {
				gw, found := in.Gateways[bundle.Gateway]
				if !found {
					continue
				}
				o = &GatewayOutput{Gateway: gw}
				byName[bundle.Gateway] = o
			}
			o.Parts = append(o.Parts, Part{API: c.API, Bundle: bundle})
		}
	}
	out := make([]GatewayOutput, 0, len(byName))
	for _, o := range byName {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b GatewayOutput) int { return cmp.Compare(a.Name(), b.Name()) })
	return out, nil
}

// Files returns the files of one compiled Gateway's output, by ConfigMap key, as YAML:
// each part's files (KeyPluginConfig when apim.kuadrant.io/v1alpha1 is read;
// KeyKuadrantWasm and KeyKuadrantLimits when kuadrant.io/v1 or v1alpha1 is), and every
// part's limits (KeyLimits). A Gateway without policies gets configurations without
// policies and the limits "[]".
func (o GatewayOutput) Files() (map[string]string, error) {
	gw := o.Gateway
	data := map[string]string{}
	encode := func(k string, v any) error {
		b, err := yaml.Marshal(v)
		if err != nil {
			return fmt.Errorf("controller: Gateway %s/%s: encode %s: %w", gw.Namespace, gw.Name, k, err)
		}
		data[k] = string(b)
		return nil
	}
	limits := []limitador.Limit{}
	for _, p := range o.Parts {
		for _, f := range p.Files {
			if err := encode(f.Name, f.Value); err != nil {
				return nil, err
			}
		}
		limits = append(limits, p.Limits...)
	}
	if err := encode(KeyLimits, limits); err != nil {
		return nil, err
	}
	return data, nil
}

// ConfigMaps returns the ConfigMaps of one compiled Gateway, in the order they are to be
// written, all in the Gateway's namespace, owned by the Gateway and labelled with
// LabelManagedBy and LabelGateway. When the output's files (Files) hold at most
// MaxConfigMapBytes, it is one ConfigMap named ConfigMapName holding them. Otherwise the
// files are split (package bundle) over ConfigMaps of at most MaxPartBytes each, named
// PartName and labelled LabelPart, followed by the ConfigMap named ConfigMapName holding
// only KeyIndex, the index of the parts with their digests. Parts are written before the
// index and deleted after it, so that a reader (`rlpkit serve --limits DIR` on a projected
// volume) never finds an index naming parts not yet written.
func ConfigMaps(out GatewayOutput) ([]*corev1.ConfigMap, error) {
	return configMaps(out, MaxConfigMapBytes, MaxPartBytes)
}

// configMaps is ConfigMaps with the sizes as arguments.
func configMaps(out GatewayOutput, maxOne, maxPart int) ([]*corev1.ConfigMap, error) {
	gw := out.Gateway
	if errs := validation.IsDNS1123Subdomain(gw.Name); len(errs) > 0 {
		return nil, fmt.Errorf("controller: Gateway %s/%s: metadata.name: %s", gw.Namespace, gw.Name, errs[0])
	}
	files, err := out.Files()
	if err != nil {
		return nil, err
	}
	size := 0
	for _, v := range files {
		size += len(v)
	}
	if size <= maxOne {
		return []*corev1.ConfigMap{newConfigMap(gw, ConfigMapName(gw.Name), files, 0)}, nil
	}
	idx, objs, err := bundle.Split(files, maxPart, func(n int) string { return PartName(gw.Name, n) })
	if err != nil {
		return nil, fmt.Errorf("controller: Gateway %s/%s: %w", gw.Namespace, gw.Name, err)
	}
	cms := make([]*corev1.ConfigMap, 0, len(objs)+1)
	for i, o := range objs {
		cms = append(cms, newConfigMap(gw, o.Name, o.Files, i+1))
	}
	return append(cms, newConfigMap(gw, ConfigMapName(gw.Name), map[string]string{KeyIndex: idx.Encode()}, 0)), nil
}

// newConfigMap returns a ConfigMap of gw's output holding data; part is its number in a
// split output, 0 for none.
func newConfigMap(gw *gatewayv1.Gateway, name string, data map[string]string, part int) *corev1.ConfigMap {
	labels := map[string]string{LabelManagedBy: ManagerName, LabelGateway: GatewayLabel(gw.Name)}
	if part > 0 {
		labels[LabelPart] = strconv.Itoa(part)
	}
	return &corev1.ConfigMap{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       gw.Namespace,
			Name:            name,
			Labels:          labels,
			OwnerReferences: ownedBy(gw),
		},
		Data: data,
	}
}

// ownedBy returns the owner references of an object the Gateway controls.
func ownedBy(gw *gatewayv1.Gateway) []metav1.OwnerReference {
	return []metav1.OwnerReference{{
		APIVersion: gatewayv1.GroupVersion.String(),
		Kind:       "Gateway",
		Name:       gw.Name,
		UID:        gw.UID,
		Controller: ptrTo(true),
	}}
}

func ptrTo[T any](v T) *T { return &v }
