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
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/rlpkit/rlpkit/kuadrant"
)

// TestOnlyKuadrantV1CRD runs the controller against an API server of its own where only
// Kuadrant's RateLimitPolicy kuadrant.io/v1 CRD is installed, as in a cluster with
// Kuadrant's operator and without rlpkit's CRD: the controller starts, leaves
// apim.kuadrant.io/v1alpha1 unwatched, and reconciles the v1 policies; the ConfigMap holds
// no PluginConfig.
func TestOnlyKuadrantV1CRD(t *testing.T) {
	apiServer(t) // skips, or fails, as the other envtest tests do without the binaries
	gw, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "sigs.k8s.io/gateway-api").Output()
	if err != nil {
		t.Fatalf("find the gateway-api module: %v", err)
	}
	own := &envtest.Environment{
		CRDInstallOptions: envtest.CRDInstallOptions{
			Paths: []string{
				filepath.Join(strings.TrimSpace(string(gw)), "config", "crd", "standard"),
				filepath.Join("..", "config", "crd", "kuadrant.io_ratelimitpolicies.yaml"),
			},
			ErrorIfPathMissing: true,
		},
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	cfg, err := own.Start()
	if err != nil {
		t.Fatalf("start a second envtest: %v", err)
	}
	t.Cleanup(func() {
		if err := own.Stop(); err != nil {
			t.Errorf("stop the second envtest: %v", err)
		}
	})
	c := direct(t, cfg)
	ctx := context.Background()
	ns := namespace(t, c, "only-v1")
	ctl := startController(t, cfg, ns)

	create(t, c, gateway(ns, "gw", "*.example.com"),
		route(ns, "shop", "shop.example.com", "/", "gw"),
		rlpV1(t, ns, "shop", "HTTPRoute", "shop", limitsV1("per-client", 4, "10s")))
	eventually(t, settle, func() error {
		if err := wantConditionV1(ctx, c, ns, "shop", kuadrant.ConditionEnforced, metav1.ConditionTrue, kuadrant.ReasonEnforced); err != nil {
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
		if diff := cmp.Diff([]string{KeyKuadrantLimits, KeyKuadrantWasm, KeyLimits}, keys); diff != "" {
			return fmt.Errorf("ConfigMap keys (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"only-v1/shop=4/10"}, got.maxValues()); diff != "" {
			return fmt.Errorf("limits.yaml (-want +got):\n%s", diff)
		}
		return nil
	})
	ctl.stop()
	if errs := ctl.syncErrors(); len(errs) > 0 {
		t.Errorf("sync errors with only the kuadrant.io/v1 CRD: %v", errs)
	}
}
