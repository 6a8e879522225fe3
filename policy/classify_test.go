package policy

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadMixedFiles: objects rlpkit does not read are skipped with one notice per file,
// files that claim to be Gateway API or Kuadrant objects are errors when rlpkit cannot
// read them, and PluginConfigs and limits files are checked as what they are.
func TestReadMixedFiles(t *testing.T) {
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: toystore}\nspec: {replicas: 1}\n"
	const service = "apiVersion: v1\nkind: Service\nmetadata: {name: toystore}\nspec: {ports: [{port: 80}]}\n"
	const namespace = "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n"
	tests := []struct {
		name    string
		file    string
		data    string
		want    FileContent
		notices []string
		errs    []string
		configs int // PluginConfigs read
		limits  int // limits files read
		objects int // Gateways, HTTPRoutes, RateLimitPolicies and Namespaces read
	}{{
		name:    "deployment",
		file:    "deploy.yaml",
		data:    deployment,
		want:    FileContent{Content: ContentForeign, Kinds: []string{"apps/v1 Deployment"}},
		notices: []string{"skipped deploy.yaml: apps/v1 Deployment"},
	}, {
		name:    "several kinds in one file, one notice listing them",
		file:    "app.yaml",
		data:    deployment + "---\n" + service + "---\n" + strings.Replace(deployment, "toystore", "worker", 1),
		want:    FileContent{Content: ContentForeign, Kinds: []string{"apps/v1 Deployment", "v1 Service"}},
		notices: []string{"skipped app.yaml: apps/v1 Deployment, v1 Service"},
	}, {
		name:    "helm values",
		file:    "values.yaml",
		data:    "replicaCount: 2\nimage:\n  repository: quay.io/toystore\n  tag: \"1.0\"\nservice: {type: ClusterIP, port: 80}\n",
		want:    FileContent{Content: ContentOther},
		notices: []string{"skipped values.yaml: not a Kubernetes object"},
	}, {
		name:    "helm chart",
		file:    "Chart.yaml",
		data:    "apiVersion: v2\nname: toystore\nversion: 0.1.0\n",
		want:    FileContent{Content: ContentOther},
		notices: []string{"skipped Chart.yaml: not a Kubernetes object"},
	}, {
		name:    "package.json",
		file:    "package.json",
		data:    `{"name": "toystore", "version": "1.0.0", "scripts": {"start": "node index.js"}}`,
		want:    FileContent{Content: ContentOther},
		notices: []string{"skipped package.json: not a Kubernetes object"},
	}, {
		name:    "kustomization with apiVersion and kind",
		file:    "kustomization.yaml",
		data:    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [deploy.yaml]\n",
		want:    FileContent{Content: ContentForeign, Kinds: []string{"kustomize.config.k8s.io/v1beta1 Kustomization"}},
		notices: []string{"skipped kustomization.yaml: kustomize.config.k8s.io/v1beta1 Kustomization"},
	}, {
		name:    "kustomization without them",
		file:    "kustomization.yaml",
		data:    "resources:\n- deploy.yaml\n",
		want:    FileContent{Content: ContentOther},
		notices: []string{"skipped kustomization.yaml: not a Kubernetes object"},
	}, {
		name:    "gateway class and DNS policy: Gateway API and Kuadrant kinds rlpkit does not read",
		file:    "infra.yaml",
		data:    "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: istio}\nspec: {controllerName: istio.io/gateway-controller}\n---\napiVersion: kuadrant.io/v1\nkind: DNSPolicy\nmetadata: {name: a}\n",
		want:    FileContent{Content: ContentForeign, Kinds: []string{"gateway.networking.k8s.io/v1 GatewayClass", "kuadrant.io/v1 DNSPolicy"}},
		notices: []string{"skipped infra.yaml: gateway.networking.k8s.io/v1 GatewayClass, kuadrant.io/v1 DNSPolicy"},
	}, {
		name:    "objects read and a service skipped in one file",
		file:    "ns.yaml",
		data:    namespace + "---\n" + service,
		want:    FileContent{Content: ContentObjects, Kinds: []string{"Namespace"}},
		notices: []string{"skipped ns.yaml: v1 Service"},
		objects: 1,
	}, {
		name:    "a List of other objects",
		file:    "list.yaml",
		data:    "apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(deployment, "\n"), "\n", "\n  ") + "\n",
		want:    FileContent{Content: ContentForeign, Kinds: []string{"apps/v1 Deployment"}},
		notices: []string{"skipped list.yaml: apps/v1 Deployment"},
	}, {
		name: "a List holding what is not an object",
		file: "list.yaml",
		data: "apiVersion: v1\nkind: List\nitems:\n- rateLimitPolicies: []\n- [{namespace: ns, max_value: 1, seconds: 1}]\n- 7\n",
		want: FileContent{Content: ContentObjects},
		errs: []string{
			"list.yaml:4: items[0]: expected an object with apiVersion and kind",
			"list.yaml:5: items[1]: expected an object with apiVersion and kind",
			"list.yaml:6: items[2]: expected an object with apiVersion and kind",
		},
	}, {
		name:    "an Istio Gateway: a kind rlpkit reads, of another group",
		file:    "istio.yaml",
		data:    "apiVersion: networking.istio.io/v1\nkind: Gateway\nmetadata: {name: ingress, namespace: istio-system}\nspec:\n  selector: {istio: ingressgateway}\n  servers: [{port: {number: 80, name: http, protocol: HTTP}, hosts: ['*']}]\n",
		want:    FileContent{Content: ContentForeign, Kinds: []string{"networking.istio.io/v1 Gateway"}},
		notices: []string{"skipped istio.yaml: networking.istio.io/v1 Gateway"},
	}, {
		name:    "an Istio Gateway beside a Gateway API Gateway",
		file:    "gateways.yaml",
		data:    "apiVersion: networking.istio.io/v1beta1\nkind: Gateway\nmetadata: {name: ingress}\n---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: istio\n  listeners: [{name: http, port: 80, protocol: HTTP}]\n",
		want:    FileContent{Content: ContentObjects, Kinds: []string{"Gateway"}},
		notices: []string{"skipped gateways.yaml: networking.istio.io/v1beta1 Gateway"},
		objects: 1,
	}, {
		name: "a Gateway API Gateway of a version rlpkit does not read",
		file: "gw.yaml",
		data: "apiVersion: gateway.networking.k8s.io/v1beta1\nkind: Gateway\nmetadata: {name: gw}\n",
		want: FileContent{Content: ContentObjects, Kinds: []string{"Gateway"}},
		errs: []string{`gw.yaml:1: apiVersion: Unsupported value: "gateway.networking.k8s.io/v1beta1": Gateway is read as gateway.networking.k8s.io/v1`},
	}, {
		name:    "a Namespace of another group",
		file:    "ns.yaml",
		data:    "apiVersion: example.com/v1\nkind: Namespace\nmetadata: {name: shop}\n",
		want:    FileContent{Content: ContentForeign, Kinds: []string{"example.com/v1 Namespace"}},
		notices: []string{"skipped ns.yaml: example.com/v1 Namespace"},
	}, {
		name: "a Gateway API kind that does not exist",
		file: "routes.yaml",
		data: "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoutes\nmetadata: {name: r}\n",
		want: FileContent{Content: ContentObjects, Kinds: []string{"HTTPRoutes"}},
		errs: []string{`routes.yaml:2: kind: Unsupported value: "HTTPRoutes": not a kind rlpkit reads or skips in gateway.networking.k8s.io/v1; supported kinds: Gateway, HTTPRoute, GRPCRoute (gateway.networking.k8s.io/v1), RateLimitPolicy (apim.kuadrant.io/v1alpha1, kuadrant.io/v1), TokenRateLimitPolicy (kuadrant.io/v1alpha1), AuthPolicy (kuadrant.io/v1), BackendTrafficPolicy (gateway.envoyproxy.io/v1alpha1), Namespace, ConfigMap, List (v1)`},
	}, {
		name:    "Envoy Gateway BackendTrafficPolicy",
		file:    "btp.yaml",
		data:    "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: p}\nspec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: g}]\n  timeout: {http: {requestTimeout: 5s}}\n",
		want:    FileContent{Content: ContentObjects, Kinds: []string{"BackendTrafficPolicy"}},
		objects: 1,
	}, {
		name:    "Envoy Gateway kinds rlpkit does not read",
		file:    "ctp.yaml",
		data:    "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: ClientTrafficPolicy\nmetadata: {name: p}\n---\napiVersion: gateway.envoyproxy.io/v1alpha2\nkind: BackendTrafficPolicy\nmetadata: {name: p}\n",
		want:    FileContent{Content: ContentForeign, Kinds: []string{"gateway.envoyproxy.io/v1alpha1 ClientTrafficPolicy", "gateway.envoyproxy.io/v1alpha2 BackendTrafficPolicy"}},
		notices: []string{"skipped ctp.yaml: gateway.envoyproxy.io/v1alpha1 ClientTrafficPolicy, gateway.envoyproxy.io/v1alpha2 BackendTrafficPolicy"},
	}, {
		name:    "kuadrant.io/v1 RateLimitPolicy",
		file:    "rlp.yaml",
		data:    "apiVersion: kuadrant.io/v1\nkind: RateLimitPolicy\nmetadata: {name: p}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}\n  limits: {a: {rates: [{limit: 5, window: 10s}]}}\n",
		want:    FileContent{Content: ContentObjects, Kinds: []string{"RateLimitPolicy"}},
		objects: 1,
	}, {
		name: "kuadrant.io/v1beta2 RateLimitPolicy",
		file: "rlp.yaml",
		data: "apiVersion: kuadrant.io/v1beta2\nkind: RateLimitPolicy\nmetadata: {name: p}\nspec:\n  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}\n",
		want: FileContent{Content: ContentObjects, Kinds: []string{"RateLimitPolicy"}},
		errs: []string{`rlp.yaml:1: apiVersion: Unsupported value: "kuadrant.io/v1beta2": rlpkit does not support the RateLimitPolicy of kuadrant.io/v1beta2; it reads kuadrant.io/v1 RateLimitPolicies (spec.targetRef, spec.limits or spec.defaults or spec.overrides) and apim.kuadrant.io/v1alpha1 ones (spec.targetRef, spec.default and spec.override with gatewayActions and rateLimits)`},
	}, {
		name: "an object that forgot its kind",
		file: "nokind.yaml",
		data: "metadata: {name: p}\nspec: {}\n",
		want: FileContent{Content: ContentObjects},
		errs: []string{"nokind.yaml:1: kind: Required value: every document needs apiVersion and kind"},
	}, {
		name:    "valid PluginConfig",
		file:    "pluginconfig.yaml",
		data:    "rateLimitPolicies:\n- rateLimitDomain: d\n  upstreamCluster: c\n  hostnames: [\"*.toystore.com\"]\n",
		want:    FileContent{Content: ContentPluginConfig},
		configs: 1,
	}, {
		name: "invalid PluginConfig",
		file: "pluginconfig.yaml",
		data: "failureModeDeny: true\nrateLimitPolicies:\n- upstreamCluster: c\n  hostnames: [\"*.toystore.com\"]\n  burst: 1\n",
		want: FileContent{Content: ContentPluginConfig},
		errs: []string{"pluginconfig.yaml:5: PluginConfig: rateLimitPolicies[0].burst: unknown field"},
	}, {
		name:   "valid limits file",
		file:   "limits.yaml",
		data:   "- {namespace: ns, max_value: 5, seconds: 10, conditions: [], variables: []}\n",
		want:   FileContent{Content: ContentLimits},
		limits: 1,
	}, {
		name: "invalid limits file",
		file: "limits.yaml",
		data: "- namespace: ns\n  seconds: 10\n- namespace: ns\n  max_value: 5\n  seconds: 1m\n- namespace: ns\n  max_value: \"10\"\n  seconds: 60\n",
		want: FileContent{Content: ContentLimits},
		errs: []string{
			"limits.yaml:1: limits: [0].max_value: required field is missing",
			"limits.yaml:5: limits: [1].seconds: must be an integer number of seconds: write 60 for 1m",
			"limits.yaml:7: limits: [2].max_value: must be an integer, not a string: write 10 without quotes",
		},
	}, {
		name:    "the output of rlpkit compile",
		file:    "out.yaml",
		data:    "gateways: []\npolicies: []\n",
		want:    FileContent{Content: ContentCompileOutput},
		notices: []string{"skipped out.yaml: the output of rlpkit compile"},
	}, {
		name: "comments only",
		file: "empty.yaml",
		data: "# nothing yet\n",
		want: FileContent{Content: ContentEmpty},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fc, err := Identify([]byte(tc.data))
			if err != nil {
				t.Fatalf("Identify(%s): %v", tc.file, err)
			}
			if diff := cmp.Diff(tc.want, fc); diff != "" {
				t.Errorf("Identify(%s) (-want +got):\n%s", tc.file, diff)
			}

			set, err := Decode(tc.file, []byte(tc.data))
			var errs []string
			if err != nil {
				errs = strings.Split(err.Error(), "\n")
			}
			if diff := cmp.Diff(tc.errs, errs); diff != "" {
				t.Errorf("Decode(%s) errors (-want +got):\n%s", tc.file, diff)
			}
			var notices []string
			for _, n := range set.Notices {
				notices = append(notices, n.String())
			}
			if diff := cmp.Diff(tc.notices, notices); diff != "" {
				t.Errorf("Decode(%s) notices (-want +got):\n%s", tc.file, diff)
			}
			objects := len(set.Gateways) + len(set.HTTPRoutes) + len(set.Policies) + len(set.PoliciesV1) + len(set.BackendTrafficPolicies) + len(set.Namespaces)
			if objects != tc.objects || len(set.PluginConfigs) != tc.configs || len(set.LimitLists) != tc.limits {
				t.Errorf("Decode(%s) = %d objects, %d PluginConfigs, %d limits files; want %d, %d, %d",
					tc.file, objects, len(set.PluginConfigs), len(set.LimitLists), tc.objects, tc.configs, tc.limits)
			}
		})
	}
}

// TestFileContentString: what a message about a file says it holds.
func TestFileContentString(t *testing.T) {
	tests := []struct {
		fc   FileContent
		want string
	}{
		{FileContent{Content: ContentObjects, Kinds: []string{"RateLimitPolicy"}}, "RateLimitPolicy objects"},
		{FileContent{Content: ContentObjects, Kinds: []string{"Gateway", "HTTPRoute"}}, "Gateway, HTTPRoute objects"},
		{FileContent{Content: ContentPluginConfig}, "a PluginConfig"},
		{FileContent{Content: ContentLimits}, "a list of limits in limitador's format"},
		{FileContent{Content: ContentCompileOutput}, "the output of rlpkit compile"},
		{FileContent{Content: ContentForeign, Kinds: []string{"apps/v1 Deployment"}}, "apps/v1 Deployment objects, which rlpkit does not read"},
		{FileContent{Content: ContentOther}, "no Kubernetes object"},
		{FileContent{}, "no document"},
	}
	for _, tc := range tests {
		if got := tc.fc.String(); got != tc.want {
			t.Errorf("%+v.String() = %q, want %q", tc.fc, got, tc.want)
		}
	}
}

// TestReadTemplates: a file that is not YAML is an error, unless it is a template (a Helm
// chart's) that names nothing rlpkit reads: that is skipped with a notice.
func TestReadTemplates(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		errs    []string
		notices []string
	}{{
		name:    "helm template of a deployment",
		data:    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.labels }}\n  labels: {{ toYaml .Values.labels | nindent 4 }}\n{{- end }}\n",
		notices: []string{"skipped t.yaml: a template, not YAML (line 5: could not find expected ':'), that names no Gateway API or Kuadrant object"},
	}, {
		name: "broken policy",
		data: "apiVersion: apim.kuadrant.io/v1alpha1\nkind: RateLimitPolicy\nmetadata:\n  name: p\n\tnamespace: ns\n",
		errs: []string{"t.yaml:5: YAML: found a tab character that violates indentation"},
	}, {
		name: "not YAML, not a template",
		data: "kind: [\n",
		errs: []string{"t.yaml:1: YAML: did not find expected node content"},
	}, {
		name: "template of a policy",
		data: "apiVersion: apim.kuadrant.io/v1alpha1\nkind: RateLimitPolicy\nmetadata:\n  name: {{ .Release.Name }}\n{{- if .Values.x }}\n{{- end }}\n",
		errs: []string{"t.yaml:5: YAML: could not find expected ':'"},
	}, {
		name: "broken namespace",
		data: "apiVersion: v1\nkind: Namespace\nmetadata: {name: \"a}\n",
		errs: []string{"t.yaml:3: YAML: found unexpected end of stream (is a quote, [ or { opened on this line closed?)"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Decode("t.yaml", []byte(tc.data))
			var errs, notices []string
			if err != nil {
				errs = strings.Split(err.Error(), "\n")
			}
			for _, n := range set.Notices {
				notices = append(notices, n.String())
			}
			if diff := cmp.Diff(tc.errs, errs); diff != "" {
				t.Errorf("Decode(t.yaml) errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.notices, notices); diff != "" {
				t.Errorf("Decode(t.yaml) notices (-want +got):\n%s", diff)
			}
		})
	}
}
