package controller

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// lockedBuffer is a log sink's buffer that the manager's goroutines may write at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSetupWithoutAuthPolicyCRD: where the API server does not serve AuthPolicies, the
// Reconciler is set up reading kuadrant.io/v1 RateLimitPolicies all the same, and says
// once that AuthPolicies are not watched; reading only apim.kuadrant.io/v1alpha1, which
// AuthPolicies do not change, it says nothing of them.
func TestSetupWithoutAuthPolicyCRD(t *testing.T) {
	for _, tc := range []struct {
		name   string
		apis   []API
		served bool
		want   int
	}{
		{"kuadrant.io/v1 without the CRD", []API{APIV1}, false, 1},
		{"kuadrant.io/v1 with the CRD", []API{APIV1}, true, 0},
		{"apim.kuadrant.io/v1alpha1 only", []API{APIV1alpha1}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testScheme(t)
			mapper := meta.NewDefaultRESTMapper(nil)
			for gvk := range s.AllKnownTypes() {
				if gvk.Kind != "GRPCRoute" {
					mapper.Add(gvk, meta.RESTScopeNamespace)
				}
			}
			if tc.served {
				mapper.Add(AuthPolicyKind, meta.RESTScopeNamespace)
			}
			var logs lockedBuffer
			// The manager is set up, not started: it never reaches this address.
			mgr, err := ctrl.NewManager(&rest.Config{Host: "http://127.0.0.1:1"}, ctrl.Options{
				Scheme:                 s,
				Logger:                 zap.New(zap.WriteTo(&logs)),
				MapperProvider:         func(*rest.Config, *http.Client) (meta.RESTMapper, error) { return mapper, nil },
				Metrics:                metricsserver.Options{BindAddress: "0"},
				HealthProbeBindAddress: "0",
			})
			if err != nil {
				t.Fatal(err)
			}
			r := &Reconciler{Options: Options{APIs: tc.apis}, skipNameValidation: true}
			if err := r.SetupWithManager(mgr); err != nil {
				t.Fatalf("SetupWithManager: %v", err)
			}
			if got := strings.Count(logs.String(), "AuthPolicy CRD not installed"); got != tc.want {
				t.Errorf("logged %d times that AuthPolicies are not watched, want %d; the log:\n%s", got, tc.want, logs.String())
			}
			if !strings.Contains(logs.String(), "GRPCRoute CRD not installed") {
				t.Errorf("the log lacks the GRPCRoute line, so it is not the manager's:\n%s", logs.String())
			}
		})
	}
}

// TestDecodeAuthPolicy: an AuthPolicy listed unstructured decodes as rlpkit reads one from
// a file, integers in its rules kept as integers; one whose fields have the wrong shape is
// an error naming it.
func TestDecodeAuthPolicy(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kuadrant.io/v1", "kind": "AuthPolicy",
		"metadata": map[string]any{"namespace": "ns", "name": "keys"},
		"spec": map[string]any{
			"targetRef": map[string]any{"group": gatewayv1.GroupName, "kind": "HTTPRoute", "name": "toys"},
			"rules":     map[string]any{"authentication": map[string]any{"k": map[string]any{"priority": int64(2)}}},
		},
	}}
	p, err := decodeAuthPolicy(u)
	if err != nil {
		t.Fatal(err)
	}
	if p.Namespace != "ns" || p.Name != "keys" || p.Spec.TargetRef.Name != "toys" {
		t.Errorf("decoded %s/%s targeting %s, want ns/keys targeting toys", p.Namespace, p.Name, p.Spec.TargetRef.Name)
	}
	prio := p.Spec.AuthScheme["authentication"].(map[string]any)["k"].(map[string]any)["priority"]
	if _, ok := prio.(int64); !ok {
		t.Errorf("priority decoded as %T, want int64", prio)
	}

	u.Object["spec"] = map[string]any{"targetRef": "toys"}
	if _, err := decodeAuthPolicy(u); err == nil || !strings.HasPrefix(err.Error(), "controller: AuthPolicy ns/keys: ") {
		t.Errorf("decodeAuthPolicy(targetRef a string) = %v, want an error naming ns/keys", err)
	}
}
