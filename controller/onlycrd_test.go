package controller

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/policy"
)

// TestOnlyOneCRD runs the controller against an API server of its own where only one
// policy CRD is installed: Kuadrant's RateLimitPolicy kuadrant.io/v1 (a cluster with
// Kuadrant's operator and without rlpkit's CRD), rlpkit's apim.kuadrant.io/v1alpha1, or
// Kuadrant's TokenRateLimitPolicy kuadrant.io/v1alpha1. The
// controller starts, leaves the other API unwatched, and reconciles the policies of the
// one installed; the ConfigMap holds that API's keys and limits.yaml.
func TestOnlyOneCRD(t *testing.T) {
	apiServer(t) // skips, or fails, as the other envtest tests do without the binaries
	gw, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Fatalf("find the gateway-api module: %v", err)
	}
	tests := []struct {
		crd    string
		policy func(t *testing.T, ns string) client.Object
		status func(ctx context.Context, c client.Client, ns string) error
		keys   []string
		limits []string
	}{
		{
			crd: "kuadrant.io_ratelimitpolicies.yaml",
			policy: func(t *testing.T, ns string) client.Object {
				return rlpV1(t, ns, "shop", "HTTPRoute", "shop", limitsV1("per-client", 4, "10s"))
			},
			status: func(ctx context.Context, c client.Client, ns string) error {
				return wantConditionV1(ctx, c, ns, "shop", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced)
			},
			keys:   []string{KeyKuadrantLimits, KeyKuadrantWasm, KeyLimits},
			limits: []string{"only/shop=4/10"},
		},
		{
			crd: "apim.kuadrant.io_ratelimitpolicies.yaml",
			policy: func(t *testing.T, ns string) client.Object {
				return rlp(t, ns, "shop", "HTTPRoute", "shop", limits("default", 4, 10))
			},
			status: func(ctx context.Context, c client.Client, ns string) error {
				return wantCondition(ctx, c, ns, "shop", policy.ConditionEnforced, metav1.ConditionTrue, policy.ReasonEnforced)
			},
			keys:   []string{KeyLimits, KeyPluginConfig},
			limits: []string{"only/gw#only/shop=4/10"},
		},
		{
			crd: "kuadrant.io_tokenratelimitpolicies.yaml",
			policy: func(t *testing.T, ns string) client.Object {
				return trlp(t, ns, "shop", "HTTPRoute", "shop", "limits:\n  tokens: {rates: [{limit: 400, window: 10s}]}\n")
			},
			status: func(ctx context.Context, c client.Client, ns string) error {
				cond, err := conditionToken(ctx, c, ns, "shop", kuadrant.ConditionEnforced)
				if err != nil {
					return err
				}
				if cond.Reason != kuadrant.ReasonEnforced {
					return fmt.Errorf("TokenRateLimitPolicy shop: Enforced %s (%s), want Enforced", cond.Reason, cond.Message)
				}
				return nil
			},
			keys:   []string{KeyKuadrantLimits, KeyKuadrantWasm, KeyLimits},
			limits: []string{"only/shop=400/10"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.crd, func(t *testing.T) {
			own := &envtest.Environment{
				CRDInstallOptions: envtest.CRDInstallOptions{
					Paths: []string{
						filepath.Join(strings.TrimSpace(string(gw)), "config", "crd", "standard"),
						filepath.Join("..", "config", "crd", tc.crd),
					},
					ErrorIfPathMissing: true,
				},
				ControlPlaneStartTimeout: 2 * time.Minute,
				ControlPlaneStopTimeout:  time.Minute,
			}
			cfg, err := own.Start()
			if err != nil {
				t.Fatalf("start an envtest with only %s: %v", tc.crd, err)
			}
			t.Cleanup(func() {
				if err := own.Stop(); err != nil {
					t.Errorf("stop the envtest with only %s: %v", tc.crd, err)
				}
			})
			c := direct(t, cfg)
			ctx := context.Background()
			ns := namespace(t, c, "only")
			ctl := startController(t, cfg, ns)

			create(t, c, gateway(ns, "gw", "*.example.com"), route(ns, "shop", "shop.example.com", "/", "gw"), tc.policy(t, ns))
			eventually(t, settle, func() error {
				if err := tc.status(ctx, c, ns); err != nil {
					return err
				}
				got, err := readConfigMap(ctx, c, ns, "gw")
				if err != nil {
					return err
				}
				var keys []string
				for k := range got.cm.Data {
					keys = append(keys, k)
				}
				slices.Sort(keys)
				if diff := cmp.Diff(tc.keys, keys); diff != "" {
					return fmt.Errorf("ConfigMap keys (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tc.limits, got.maxValues()); diff != "" {
					return fmt.Errorf("limits.yaml (-want +got):\n%s", diff)
				}
				return nil
			})
			ctl.stop()
			if errs := ctl.syncErrors(); len(errs) > 0 {
				t.Errorf("sync errors with only %s: %v", tc.crd, errs)
			}
		})
	}
}
