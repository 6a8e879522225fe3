package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/rlpkit/rlpkit/controller"
	"github.com/rlpkit/rlpkit/internal/serving"
	"github.com/rlpkit/rlpkit/kuadrant"
	"github.com/rlpkit/rlpkit/merge"
)

// config is the command line.
type config struct {
	metricsAddr, healthAddr string
	leaderElect             bool
	leaderElectionNamespace string
	upstreamCluster         string
	failureModeDeny         bool
	apis                    []controller.API
	kuadrant                kuadrant.Options
	development             bool
	qps                     float64
	burst                   int
	statusWorkers           int
	dataPlane               controller.DataPlaneOptions
	http                    serving.HTTPBounds // the metrics and health ports'
}

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("rlpkit-controller", flag.ContinueOnError)
	fs.StringVar(&c.metricsAddr, "metrics-addr", ":8080", "serve Prometheus metrics on this `address`; 0 disables them")
	fs.StringVar(&c.healthAddr, "health-addr", ":8081", "serve /healthz and /readyz on this `address`; 0 disables them")
	fs.BoolVar(&c.leaderElect, "leader-elect", false, "elect a leader (a Lease), so that one replica at a time reconciles")
	fs.StringVar(&c.leaderElectionNamespace, "leader-election-namespace", "", "`namespace` of the leader election Lease; empty means the one the controller runs in")
	fs.StringVar(&c.upstreamCluster, "upstream-cluster", merge.DefaultUpstreamCluster, "Envoy `cluster` of the rate-limit service, written in each PluginConfig (apim.kuadrant.io/v1alpha1)")
	fs.BoolVar(&c.failureModeDeny, "failure-mode-deny", false, "PluginConfigs deny traffic when the rate-limit service cannot be reached (apim.kuadrant.io/v1alpha1)")
	apis := fs.String("apis", "", "policy `APIs` to read, comma-separated: "+string(controller.APIV1alpha1)+" (RateLimitPolicy), "+string(controller.APIV1)+" (RateLimitPolicy), "+string(controller.APITokenV1alpha1)+" (TokenRateLimitPolicy); empty means those whose CRD is installed. Leave the kuadrant.io ones out where Kuadrant's operator runs: it writes those policies' statuses")
	fs.StringVar(&c.kuadrant.RateLimitEndpoint, "kuadrant-ratelimit-endpoint", kuadrant.DefaultRateLimitEndpoint, "Envoy `cluster` of the rate-limit service, written in each wasm-shim configuration (kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.RateLimitFailureMode, "kuadrant-ratelimit-failure-mode", kuadrant.DefaultRateLimitFailureMode, "deny or allow traffic when wasm-shim cannot reach the rate-limit service (`mode`, kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.RateLimitTimeout, "kuadrant-ratelimit-timeout", kuadrant.DefaultRateLimitTimeout, "wasm-shim's `timeout` of a rate-limit call (kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.AuthEndpoint, "kuadrant-auth-endpoint", kuadrant.DefaultAuthEndpoint, "Envoy `cluster` of the auth service (Authorino), called by the auth action of the paths an AuthPolicy covers (kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.AuthFailureMode, "kuadrant-auth-failure-mode", kuadrant.DefaultAuthFailureMode, "deny or allow traffic when wasm-shim cannot reach the auth service (`mode`, kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.AuthTimeout, "kuadrant-auth-timeout", kuadrant.DefaultAuthTimeout, "wasm-shim's `timeout` of an auth call (kuadrant.io/v1)")
	fs.Float64Var(&c.qps, "kube-api-qps", 200, "requests per second to the API server: the first run over a cluster patches one status per policy (10,000 policies: 50s at 200/s)")
	fs.IntVar(&c.burst, "kube-api-burst", 400, "burst of requests to the API server")
	fs.IntVar(&c.statusWorkers, "status-workers", controller.DefaultStatusWorkers, "status patches (and Gateways' outputs) written at once, within --kube-api-qps and --kube-api-burst")
	dataPlanes := fs.String("data-plane", "", "wire the Gateways' proxies, as kuadrant-operator does, for these `data planes`, comma-separated: istio (WasmPlugin, EnvoyFilter), envoy-gateway (EnvoyExtensionPolicy, EnvoyPatchPolicy), or auto (both, where their CRDs are installed); empty: write ConfigMaps only")
	fs.StringVar(&c.dataPlane.FilterURL, "filter-url", "", "with --data-plane: the `URL` of rlpkit's filter module (oci://..., https://...), for apim.kuadrant.io/v1alpha1 policies")
	fs.StringVar(&c.dataPlane.WasmShimURL, "wasm-shim-url", controller.DefaultWasmShimURL, "with --data-plane: the `URL` of Kuadrant's wasm-shim module, for kuadrant.io/v1 policies")
	fs.StringVar(&c.dataPlane.RateLimitAddress, "ratelimit-address", "", "with --data-plane: `host:port` of the rate-limit service (rlpkit serve); when set, the Envoy clusters --upstream-cluster and --kuadrant-ratelimit-endpoint are written pointing to it")
	fs.BoolVar(&c.development, "development", false, "log in a human-readable format at debug level")
	addBoundsFlags(fs, &c.http)
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q: rlpkit-controller takes only flags", fs.Arg(0))
	}
	if *apis != "" {
		for _, a := range strings.Split(*apis, ",") {
			api := controller.API(strings.TrimSpace(a))
			if !slices.Contains(controller.AllAPIs, api) {
				return c, fmt.Errorf("--apis: unknown policy API %q: want some of %s, %s, %s, comma-separated", a, controller.APIV1alpha1, controller.APIV1, controller.APITokenV1alpha1)
			}
			if !slices.Contains(c.apis, api) {
				c.apis = append(c.apis, api)
			}
		}
	}
	if err := parseDataPlanes(*dataPlanes, &c); err != nil {
		return c, err
	}
	if err := checkBounds(c.http); err != nil {
		return c, err
	}
	if c.statusWorkers < 1 {
		return c, fmt.Errorf("--status-workers %d: want 1 or more", c.statusWorkers)
	}
	if m := c.kuadrant.RateLimitFailureMode; m != "deny" && m != "allow" {
		return c, fmt.Errorf("--kuadrant-ratelimit-failure-mode %q: want deny or allow", m)
	}
	if d, err := time.ParseDuration(c.kuadrant.RateLimitTimeout); err != nil || d <= 0 {
		return c, fmt.Errorf("--kuadrant-ratelimit-timeout %q: want a positive duration such as 100ms", c.kuadrant.RateLimitTimeout)
	}
	if m := c.kuadrant.AuthFailureMode; m != "deny" && m != "allow" {
		return c, fmt.Errorf("--kuadrant-auth-failure-mode %q: want deny or allow", m)
	}
	if d, err := time.ParseDuration(c.kuadrant.AuthTimeout); err != nil || d <= 0 {
		return c, fmt.Errorf("--kuadrant-auth-timeout %q: want a positive duration such as 200ms", c.kuadrant.AuthTimeout)
	}
	return c, nil
}

// parseDataPlanes sets the data planes of --data-plane, and checks the flags that need it.
func parseDataPlanes(flag string, c *config) error {
	for _, d := range strings.Split(flag, ",") {
		switch d = strings.TrimSpace(d); {
		case d == "":
		case d == "auto":
			c.dataPlane.DataPlanes = controller.AllDataPlanes
		case slices.Contains(controller.AllDataPlanes, controller.DataPlane(d)):
			if !slices.Contains(c.dataPlane.DataPlanes, controller.DataPlane(d)) {
				c.dataPlane.DataPlanes = append(c.dataPlane.DataPlanes, controller.DataPlane(d))
			}
		default:
			return fmt.Errorf("--data-plane: unknown data plane %q: want istio, envoy-gateway, both comma-separated, or auto", d)
		}
	}
	if len(c.dataPlane.DataPlanes) == 0 && (c.dataPlane.FilterURL != "" || c.dataPlane.RateLimitAddress != "") {
		return fmt.Errorf("--filter-url and --ratelimit-address need --data-plane")
	}
	if c.dataPlane.RateLimitAddress != "" {
		if _, port, err := net.SplitHostPort(c.dataPlane.RateLimitAddress); err != nil || port == "" {
			return fmt.Errorf("--ratelimit-address %q: want host:port", c.dataPlane.RateLimitAddress)
		}
	}
	return nil
}

// run starts the manager and blocks until ctx is done. It returns the exit code.
func run(ctx context.Context, args []string) int {
	cfg, err := parse(args)
	if err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		fmt.Fprintln(os.Stderr, "rlpkit-controller:", err)
		return 2
	}
	ctrl.SetLogger(zap.New(zap.UseDevMode(cfg.development), zap.Level(zapLevel(cfg.development))))
	log := ctrl.Log.WithName("rlpkit-controller")

	restCfg, err := ctrl.GetConfig()
	if err != nil {
		log.Error(err, "no Kubernetes configuration: run in a cluster, or set KUBECONFIG")
		return 1
	}
	restCfg.QPS, restCfg.Burst = float32(cfg.qps), cfg.burst
	mgr, err := newManager(restCfg, cfg)
	if err != nil {
		log.Error(err, "cannot set up the manager")
		return 1
	}
	log.Info("starting", "metrics", cfg.metricsAddr, "health", cfg.healthAddr, "leaderElection", cfg.leaderElect)
	if err := mgr.Start(ctx); err != nil {
		log.Error(err, "the manager stopped")
		return 1
	}
	return 0
}

// newManager builds the manager with the reconciler, health checks and metrics.
func newManager(restCfg *rest.Config, cfg config) (ctrl.Manager, error) {
	scheme, err := controller.NewScheme()
	if err != nil {
		return nil, err
	}
	dp, err := detectDataPlanes(restCfg, cfg.dataPlane)
	if err != nil {
		return nil, err
	}
	// The metrics and the probes are served below, within cfg.http's bounds.
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         controller.CacheOptions(dp.Kinds()...),
		Client:                        controller.ClientOptions(),
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		LeaderElection:                cfg.leaderElect,
		LeaderElectionID:              "rlpkit-controller.rlpkit.dev",
		LeaderElectionNamespace:       cfg.leaderElectionNamespace,
		LeaderElectionReleaseOnCancel: true,
		GracefulShutdownTimeout:       ptrTo(10 * time.Second),
	})
	if err != nil {
		return nil, err
	}
	r := &controller.Reconciler{
		Client: mgr.GetClient(),
		Options: controller.Options{
			APIs: cfg.apis,
			Merge: merge.Options{
				UpstreamCluster: cfg.upstreamCluster,
				FailureModeDeny: cfg.failureModeDeny,
			},
			Kuadrant:      cfg.kuadrant,
			DataPlane:     dp,
			StatusWorkers: cfg.statusWorkers,
		},
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	healthy := map[string]healthz.Checker{"ping": healthz.Ping}
	ready := map[string]healthz.Checker{"caches": func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("the caches have not synced")
		}
		return nil
	}}
	for _, s := range []struct {
		name, addr string
		h          http.Handler
	}{{"metrics", cfg.metricsAddr, metricsHandler()}, {"health probe", cfg.healthAddr, probesHandler(healthy, ready)}} {
		srv, err := boundedServer(s.name, s.addr, s.h, cfg.http)
		if err != nil {
			return nil, err
		}
		if srv != nil {
			if err := mgr.Add(srv); err != nil {
				return nil, err
			}
		}
	}
	return mgr, nil
}

// detectDataPlanes keeps the data planes of dp whose CRDs the API server serves, and logs
// the others: the manager's caches are made for those kept.
func detectDataPlanes(restCfg *rest.Config, dp controller.DataPlaneOptions) (controller.DataPlaneOptions, error) {
	if len(dp.DataPlanes) == 0 {
		return dp, nil
	}
	httpClient, err := rest.HTTPClientFor(restCfg)
	if err != nil {
		return dp, err
	}
	mapper, err := apiutil.NewDynamicRESTMapper(restCfg, httpClient)
	if err != nil {
		return dp, err
	}
	found, missing, err := controller.DetectDataPlanes(mapper, dp.DataPlanes, dp.RateLimitAddress != "")
	if err != nil {
		return dp, err
	}
	for _, m := range missing {
		ctrl.Log.WithName("rlpkit-controller").Info("data plane not wired: its CRDs are not installed; install them and restart the controller", "dataPlane", m)
	}
	dp.DataPlanes = found
	return dp, nil
}

func zapLevel(development bool) zapcore.Level {
	if development {
		return zapcore.DebugLevel
	}
	return zapcore.InfoLevel
}

func ptrTo[T any](v T) *T { return &v }
