package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/rlpkit/rlpkit/controller"
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
}

func parse(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("rlpkit-controller", flag.ContinueOnError)
	fs.StringVar(&c.metricsAddr, "metrics-addr", ":8080", "serve Prometheus metrics on this `address`; 0 disables them")
	fs.StringVar(&c.healthAddr, "health-addr", ":8081", "serve /healthz and /readyz on this `address`")
	fs.BoolVar(&c.leaderElect, "leader-elect", false, "elect a leader (a Lease), so that one replica at a time reconciles")
	fs.StringVar(&c.leaderElectionNamespace, "leader-election-namespace", "", "`namespace` of the leader election Lease; empty means the one the controller runs in")
	fs.StringVar(&c.upstreamCluster, "upstream-cluster", merge.DefaultUpstreamCluster, "Envoy `cluster` of the rate-limit service, written in each PluginConfig (apim.kuadrant.io/v1alpha1)")
	fs.BoolVar(&c.failureModeDeny, "failure-mode-deny", false, "PluginConfigs deny traffic when the rate-limit service cannot be reached (apim.kuadrant.io/v1alpha1)")
	apis := fs.String("apis", "", "RateLimitPolicy `APIs` to read, comma-separated: "+string(controller.APIV1alpha1)+", "+string(controller.APIV1)+"; empty means those whose CRD is installed. Leave "+string(controller.APIV1)+" out where Kuadrant's operator runs: it writes those policies' statuses")
	fs.StringVar(&c.kuadrant.RateLimitEndpoint, "kuadrant-ratelimit-endpoint", kuadrant.DefaultRateLimitEndpoint, "Envoy `cluster` of the rate-limit service, written in each wasm-shim configuration (kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.RateLimitFailureMode, "kuadrant-ratelimit-failure-mode", kuadrant.DefaultRateLimitFailureMode, "deny or allow traffic when wasm-shim cannot reach the rate-limit service (`mode`, kuadrant.io/v1)")
	fs.StringVar(&c.kuadrant.RateLimitTimeout, "kuadrant-ratelimit-timeout", kuadrant.DefaultRateLimitTimeout, "wasm-shim's `timeout` of a rate-limit call (kuadrant.io/v1)")
	fs.Float64Var(&c.qps, "kube-api-qps", 50, "requests per second to the API server (status patches and ConfigMap writes after a large change)")
	fs.IntVar(&c.burst, "kube-api-burst", 100, "burst of requests to the API server")
	fs.BoolVar(&c.development, "development", false, "log in a human-readable format at debug level")
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
				return c, fmt.Errorf("--apis: unknown RateLimitPolicy API %q: want %s, %s or both, comma-separated", a, controller.APIV1alpha1, controller.APIV1)
			}
			if !slices.Contains(c.apis, api) {
				c.apis = append(c.apis, api)
			}
		}
	}
	if m := c.kuadrant.RateLimitFailureMode; m != "deny" && m != "allow" {
		return c, fmt.Errorf("--kuadrant-ratelimit-failure-mode %q: want deny or allow", m)
	}
	if d, err := time.ParseDuration(c.kuadrant.RateLimitTimeout); err != nil || d <= 0 {
		return c, fmt.Errorf("--kuadrant-ratelimit-timeout %q: want a positive duration such as 100ms", c.kuadrant.RateLimitTimeout)
	}
	return c, nil
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
	mgr, err := ctrl.NewManager(restCfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         controller.CacheOptions(),
		Metrics:                       metricsserver.Options{BindAddress: cfg.metricsAddr},
		HealthProbeBindAddress:        cfg.healthAddr,
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
			Kuadrant: cfg.kuadrant,
		},
	}
	if err := r.SetupWithManager(mgr); err != nil {
		return nil, err
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return nil, err
	}
	if err := mgr.AddReadyzCheck("caches", func(req *http.Request) error {
		if !mgr.GetCache().WaitForCacheSync(req.Context()) {
			return errors.New("the caches have not synced")
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return mgr, nil
}

func zapLevel(development bool) zapcore.Level {
	if development {
		return zapcore.DebugLevel
	}
	return zapcore.InfoLevel
}

func ptrTo[T any](v T) *T { return &v }
