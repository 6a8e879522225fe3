package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/rlpkit/rlpkit/bundle"
	"github.com/rlpkit/rlpkit/descriptor"
	"github.com/rlpkit/rlpkit/limit/limitador"
	"github.com/rlpkit/rlpkit/policy"
	"github.com/rlpkit/rlpkit/policy/kuadrantv1"
	"github.com/rlpkit/rlpkit/wasmshim"
)

// gateway returns a Gateway with one HTTP listener for hostname.
func gateway(ns, name, hostname string) *gatewayv1.Gateway {
	h := gatewayv1.Hostname(hostname)
	return &gatewayv1.Gateway{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gatewayv1.GatewaySpec{
			GatewayClassName: "rlpkit",
			Listeners:        []gatewayv1.Listener{{Name: "http", Port: 80, Protocol: gatewayv1.HTTPProtocolType, Hostname: &h}},
		},
	}
}

// route returns an HTTPRoute attached to the Gateways (of its namespace) for hostname,
// matching the path prefix.
func route(ns, name, hostname, path string, gateways ...string) *gatewayv1.HTTPRoute {
	r := &gatewayv1.HTTPRoute{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gatewayv1.HTTPRouteSpec{
			Hostnames: []gatewayv1.Hostname{gatewayv1.Hostname(hostname)},
		},
	}
	for _, gw := range gateways {
		r.Spec.ParentRefs = append(r.Spec.ParentRefs, gatewayv1.ParentReference{Name: gatewayv1.ObjectName(gw)})
	}
	prefix := gatewayv1.PathMatchPathPrefix
	r.Spec.Rules = []gatewayv1.HTTPRouteRule{{Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{Type: &prefix, Value: &path}}}}}
	return r
}

// rlp returns a RateLimitPolicy decoded from YAML: the metadata and targetRef are filled in,
// body is the rest of spec (default: and override: sections).
func rlp(t testing.TB, ns, name, kind, target, body string) *policy.RateLimitPolicy {
	t.Helper()
	doc := fmt.Sprintf("apiVersion: apim.kuadrant.io/v1alpha1\nkind: RateLimitPolicy\nmetadata: {namespace: %s, name: %s}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: %s}\n%s", ns, name, kind, target, indent(body, "  "))
	var p policy.RateLimitPolicy
	if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
		t.Fatalf("policy %s/%s: %v\n%s", ns, name, err, doc)
	}
	return &p
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = by + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// limits returns a default: section with one rate limit per user: max per seconds, and a
// gateway action that sends the user header.
func limits(section string, max, seconds int) string {
	return fmt.Sprintf(`%s:
  gatewayActions:
  - configurations:
    - actions:
      - request_headers: {header_name: x-user, descriptor_key: user}
  rateLimits:
  - conditions: []
    variables: [user]
    max_value: %d
    seconds: %d
`, section, max, seconds)
}

// condition returns the policy's condition of the type, read from the API server, checking
// that its observedGeneration is the policy's generation.
func condition(ctx context.Context, c client.Client, ns, name string, typ policy.ConditionType) (*metav1.Condition, error) {
	var p policy.RateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &p); err != nil {
		return nil, err
	}
	cond := meta.FindStatusCondition(p.Status.Conditions, string(typ))
	if cond == nil {
		return nil, fmt.Errorf("RateLimitPolicy %s/%s has no %s condition yet: %v", ns, name, typ, p.Status.Conditions)
	}
	if cond.ObservedGeneration != p.Generation {
		return nil, fmt.Errorf("RateLimitPolicy %s/%s: %s observedGeneration = %d, want %d", ns, name, typ, cond.ObservedGeneration, p.Generation)
	}
	return cond, nil
}

// wantCondition checks that the policy's condition has the status and reason.
func wantCondition(ctx context.Context, c client.Client, ns, name string, typ policy.ConditionType, status metav1.ConditionStatus, reason policy.ConditionReason) error {
	cond, err := condition(ctx, c, ns, name, typ)
	if err != nil {
		return err
	}
	if cond.Status != status || cond.Reason != string(reason) {
		return fmt.Errorf("RateLimitPolicy %s/%s: %s = %s (%s: %s), want %s (%s)", ns, name, typ, cond.Status, cond.Reason, cond.Message, status, reason)
	}
	return nil
}

// rlpV1 returns a kuadrant.io/v1 RateLimitPolicy decoded from YAML: the metadata and
// targetRef are filled in, body is the rest of spec (limits:, defaults: or overrides:).
func rlpV1(t *testing.T, ns, name, kind, target, body string) *kuadrantv1.RateLimitPolicy {
	t.Helper()
	doc := fmt.Sprintf("apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {namespace: %s, name: %s}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: %s, name: %s}\n%s", ns, name, kind, target, indent(body, "  "))
	var p kuadrantv1.RateLimitPolicy
	if err := yaml.UnmarshalStrict([]byte(doc), &p); err != nil {
		t.Fatalf("policy %s/%s: %v\n%s", ns, name, err, doc)
	}
	return &p
}

// limitsV1 returns bare limits (implicit atomic defaults): one limit, counted per client
// address, of max per window.
func limitsV1(name string, max int, window string) string {
	return fmt.Sprintf(`limits:
  %s:
    rates: [{limit: %d, window: %s}]
    counters: [{expression: source.remote_address}]
`, name, max, window)
}

// wantConditionV1 checks that a kuadrant.io/v1 policy's condition, read from the API
// server, has the status and reason, and that the condition's and the status's
// observedGeneration are the policy's generation.
func wantConditionV1(ctx context.Context, c client.Client, ns, name, typ string, status metav1.ConditionStatus, reason string) error {
	cond, err := conditionV1(ctx, c, ns, name, typ)
	if err != nil {
		return err
	}
	if cond.Status != status || cond.Reason != reason {
		return fmt.Errorf("RateLimitPolicy kuadrant.io/v1 %s/%s: %s = %s (%s: %s), want %s (%s)", ns, name, typ, cond.Status, cond.Reason, cond.Message, status, reason)
	}
	return nil
}

// conditionV1 returns a kuadrant.io/v1 policy's condition of the type, read from the API
// server, checking observedGeneration.
func conditionV1(ctx context.Context, c client.Client, ns, name, typ string) (*metav1.Condition, error) {
	var p kuadrantv1.RateLimitPolicy
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, &p); err != nil {
		return nil, err
	}
	cond := meta.FindStatusCondition(p.Status.Conditions, typ)
	if cond == nil {
		return nil, fmt.Errorf("RateLimitPolicy kuadrant.io/v1 %s/%s has no %s condition yet: %v", ns, name, typ, p.Status.Conditions)
	}
	if cond.ObservedGeneration != p.Generation || p.Status.ObservedGeneration != p.Generation {
		return nil, fmt.Errorf("RateLimitPolicy kuadrant.io/v1 %s/%s: %s observedGeneration = %d, status.observedGeneration = %d, want %d", ns, name, typ, cond.ObservedGeneration, p.Status.ObservedGeneration, p.Generation)
	}
	return cond, nil
}

// compiled is a Gateway's ConfigMap, decoded and checked as the filter and the service
// would read it.
type compiled struct {
	cm     *corev1.ConfigMap
	config *descriptor.PluginConfig
	limits []limitador.Limit
	// wasm and v1Limits are the kuadrant.io/v1 keys, when present.
	wasm     *wasmshim.Config
	v1Limits []limitador.Limit
}

// readConfigMap reads and decodes a Gateway's ConfigMap, or, when its output is split, the
// ConfigMaps of its parts too, checked and put together as rlpkit serve reads them.
func readConfigMap(ctx context.Context, c client.Client, ns, gw string) (*compiled, error) {
	var cm corev1.ConfigMap
	if err := c.Get(ctx, types.NamespacedName{Namespace: ns, Name: ConfigMapName(gw)}, &cm); err != nil {
		return nil, err
	}
	mounted, err := mountOutput(ctx, c, &cm)
	if err != nil {
		return nil, err
	}
	out := &compiled{cm: &cm}
	decode := func(k string, dec func([]byte) error) error {
		data, err := bundle.ReadFile(mounted, k)
		if err != nil {
			return err
		}
		js, err := yaml.YAMLToJSON(data)
		if err == nil {
			err = dec(js)
		}
		if err != nil {
			return fmt.Errorf("ConfigMap %s/%s: %s: %w", ns, cm.Name, k, err)
		}
		return nil
	}
	has := func(k string) bool { _, err := bundle.ReadFile(mounted, k); return err == nil }
	if has(KeyPluginConfig) {
		if err := decode(KeyPluginConfig, func(js []byte) (err error) { out.config, err = descriptor.Decode(js); return err }); err != nil {
			return nil, err
		}
	}
	if err := decode(KeyLimits, func(js []byte) (err error) { out.limits, err = limitador.DecodeLimits(js); return err }); err != nil {
		return nil, err
	}
	if has(KeyKuadrantWasm) {
		if err := decode(KeyKuadrantWasm, func(js []byte) error {
			out.wasm = &wasmshim.Config{}
			if err := json.Unmarshal(js, out.wasm); err != nil {
				return err
			}
			_, err := wasmshim.New(out.wasm)
			return err
		}); err != nil {
			return nil, err
		}
		if err := decode(KeyKuadrantLimits, func(js []byte) (err error) { out.v1Limits, err = limitador.DecodeLimits(js); return err }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mountOutput returns the files of a Gateway's output as a projected volume of its
// ConfigMaps holds them: cm's, and those of every part its index names (read from c).
func mountOutput(ctx context.Context, c client.Client, cm *corev1.ConfigMap) (fstest.MapFS, error) {
	fsys := fstest.MapFS{}
	add := func(cm *corev1.ConfigMap) {
		for k, v := range cm.Data {
			fsys[k] = &fstest.MapFile{Data: []byte(v)}
		}
	}
	add(cm)
	idx, err := bundle.ReadIndex(fsys)
	if err != nil || idx == nil {
		return fsys, err
	}
	seen := map[string]bool{}
	for _, parts := range idx.Files {
		for _, p := range parts {
			if seen[p.Object] {
				continue
			}
			seen[p.Object] = true
			var part corev1.ConfigMap
			if err := c.Get(ctx, types.NamespacedName{Namespace: cm.Namespace, Name: p.Object}, &part); err != nil {
				return nil, err
			}
			add(&part)
		}
	}
	return fsys, nil
}

// maxValues returns "namespace=max/seconds" for each limit of limits.yaml, in order.
func (c *compiled) maxValues() []string { return maxValuesOf(c.limits) }

// maxValuesV1 returns "namespace=max/seconds" for each limit of kuadrant-limits.yaml.
func (c *compiled) maxValuesV1() []string { return maxValuesOf(c.v1Limits) }

func maxValuesOf(ls []limitador.Limit) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = fmt.Sprintf("%s=%d/%d", l.Namespace, l.MaxValue, l.Seconds)
	}
	return out
}
